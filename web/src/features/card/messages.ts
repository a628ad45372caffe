/** What a member reads on Mi Tarjeta. */
export const CARD_COPY = {
  title: 'Mi Tarjeta',
  intro: 'Muestra este código en la caja para sumar tus compras a Mi Club.',
  loading: 'Cargando tu tarjeta…',
  failed: 'No pudimos cargar tu tarjeta. Intenta de nuevo más tarde.',
  retry: 'Reintentar',
  noAccount: 'Aún no tienes tu cuenta Mi Club. Únete desde Mi Cuenta para tener tu tarjeta.',
  goToAccount: 'Ir a Mi Cuenta',
  numberLabel: 'Número de socio',
  balanceLabel: 'Saldo',
  updated: (when: string) => `Actualizado el ${when}.`,
  offlineWithoutCard:
    'Estás sin conexión y aún no has abierto tu tarjeta en este dispositivo. Conéctate y ábrela una vez para tenerla sin conexión.',
  stale: 'No pudimos actualizar tu tarjeta. Te mostramos tu saldo de la última vez que la abriste; el código sirve igual en la caja.',
  offline:
    'Estás sin conexión. Te mostramos tu tarjeta y tu saldo de la última vez que la abriste; el código sirve igual en la caja.',
  brightness: 'Sube el brillo de tu pantalla para que la caja lea el código sin problemas.',
  largeType: 'Letra grande',
  barcodeLabel: (number: string) => `Código de barras de tu número de socio ${number}`,
} as const;
