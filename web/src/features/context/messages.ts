/** What anyone reads while the whole portal is in maintenance. */
export const CONTEXT_COPY = {
  maintenanceText: 'Estamos trabajando para brindarte la mejor experiencia',
  maintenanceTitle: '¡PRONTO EL NUEVO MI CLUB!',
} as const;
