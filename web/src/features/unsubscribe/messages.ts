/** What a member reads while unsubscribing from Mi Club ("Darme de baja de Mi Club"). */
export const UNSUBSCRIBE_COPY = {
  failed: 'No pudimos procesar tu solicitud. Intenta de nuevo más tarde.',
  title: 'Darme de baja de Mi Club',
  confirmTitle: '¿Seguro que quieres darte de baja de Mi Club?',
  identityTitle: 'Paso 1 de 2: confirma que eres tú',
  identityIntro:
    'Para darte de baja, ingresa el RUT o documento y el correo electrónico de tu cuenta, y tu contraseña actual.',
  email: 'Correo electrónico',
  currentPassword: 'Contraseña actual',
  continue: 'Continuar',
  cancel: 'Cancelar',
  alreadyTitle: 'Ya no eres parte de Mi Club',
  alreadyNoDate: 'Ya te diste de baja de Mi Club.',
  alreadyOn: (day: string) => `Ya te diste de baja de Mi Club el ${day}.`,
  farewell: (day: string) => `Te diste de baja de Mi Club el ${day}. Gracias por haber sido parte de Mi Club.`,
  backToProfile: 'Volver a Mis Datos',
  reasonTitle: 'Paso 2 de 2: cuéntanos por qué te vas',
  loadingReasons: 'Cargando los motivos…',
  reasonsFailed: 'No pudimos cargar los motivos. Intenta de nuevo más tarde.',
  retry: 'Reintentar',
  reasonQuestion: '¿Por qué quieres darte de baja?',
  reasonTextRequired: 'Cuéntanos el motivo',
  reasonTextOptional: 'Cuéntanos más (opcional)',
  reasonTextHint: (max: number) => `Hasta ${max} caracteres.`,
  back: 'Volver',
  ifYouLeave: 'Si te das de baja:',
  consequenceSessions: 'Cerraremos tu sesión en todos tus dispositivos.',
  consequenceData:
    'Eliminaremos tus datos personales: nombre, apellidos, celular, fecha de nacimiento, género y correo electrónico.',
  consequenceBalance:
    'Tu saldo y tu historial de movimientos quedarán guardados, pero no podrás verlos ni usarlos hasta que vuelvas a registrarte.',
  comeBack: 'Si más adelante quieres volver, podrás registrarte de nuevo.',
  confirm: 'Sí, darme de baja',
} as const;

/** The checks' messages, under the field they belong to. */
export const UNSUBSCRIBE_MESSAGES = {
  email: 'Ingresa un correo electrónico válido.',
  currentPassword: 'Ingresa tu contraseña actual.',
  reason: 'Elige un motivo.',
  reasonTextEmpty: 'Cuéntanos el motivo.',
  reasonTextTooLong: 'Puedes escribir hasta 500 caracteres.',
} as const;
