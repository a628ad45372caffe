/** What a member reads in Mis Datos and on the email confirmation and restoration pages. */
import { SHARED_MESSAGES } from '@/lib/messages';
import { PASSWORD_LENGTH_MESSAGES } from '@/lib/password';
import { PERSONAL_DATA_MESSAGES } from '@/lib/personal-data';

export const PROFILE_COPY = {
  sectionTitle: 'Mis Datos',
  loading: 'Cargando tus datos…',
  loadFailed: 'No pudimos cargar tus datos. Intenta de nuevo más tarde.',
  retry: 'Reintentar',
  unsubscribeIntro: 'Puedes darte de baja cuando quieras. Te explicaremos qué pasa con tu cuenta antes de confirmar.',
  unsubscribe: 'Darme de baja de Mi Club',
  activityTitle: 'Actividad de la cuenta',
  activityIntro: 'Revisa tus sesiones abiertas y los eventos de seguridad de tu cuenta, y cierra las que no reconozcas.',
  activityLink: 'Ver la actividad de la cuenta',
  formLabel: 'Tus datos personales',
  saved: 'Tus datos fueron actualizados.',
  saveFailed: 'No pudimos actualizar tus datos. Intenta de nuevo más tarde.',
  confirmationSentTo: (email: string) =>
    ` Te enviamos un enlace de confirmación a ${email}: ábrelo para confirmar tu nuevo correo.`,
  email: 'Correo electrónico',
  emailHint: 'Si lo cambias, te enviaremos un enlace para confirmar el nuevo correo.',
  currentPassword: 'Contraseña actual',
  currentPasswordHint: 'Para cambiar tu correo, confirma que eres tú con tu contraseña.',
  saveChanges: 'Guardar cambios',
  document: 'Documento',
  rut: 'RUT',
  confirmed: 'Confirmado',
  unconfirmed: 'Sin confirmar',
  checkInbox: 'Revisa tu bandeja de entrada y abre el enlace que te enviamos para confirmar tu correo.',
  resendConfirmation: 'Reenviar correo de confirmación',
  resendFailed: 'No pudimos reenviar el correo de confirmación. Intenta de nuevo más tarde.',
  changePassword: 'Cambiar contraseña',
  changeFailed: 'No pudimos cambiar tu contraseña. Intenta de nuevo más tarde.',
  newPassword: 'Nueva contraseña',
  passwordChangedTitle: 'Cambiaste tu contraseña',
  passwordChangedText:
    'Tu contraseña fue cambiada. Por seguridad cerramos tu sesión en todos tus dispositivos: debes iniciar sesión nuevamente con tu nueva contraseña.',
  logIn: SHARED_MESSAGES.logIn,
  confirmationTitle: 'Confirmación de correo',
  confirmationInvalid: 'El enlace de confirmación no es válido o ya expiró. Pide uno nuevo.',
  confirmationFailed: 'No pudimos confirmar tu correo. Intenta de nuevo más tarde.',
  confirming: 'Confirmando tu correo…',
  confirmedBefore: '¡Listo! Confirmamos tu correo ',
  confirmedAfter: '.',
  canLogIn: ' Ya puedes iniciar sesión en Mi Club.',
  /** A second open of a link that already confirmed the address. */
  alreadyConfirmed: 'Tu correo ya está confirmado.',
  goToMiClub: 'Ir a Mi Club',
  askNewLink: 'Pedir un nuevo enlace',
  restorationTitle: 'Restaurar tu correo',
  restorationInvalid: 'El enlace para restaurar tu correo no es válido o ya expiró.',
  restorationFailed: 'No pudimos restaurar tu correo. Intenta de nuevo más tarde.',
  restoring: 'Restaurando tu correo…',
  restoredBefore: 'Restauramos tu correo ',
  restoredAfter: ' y cerramos todas las sesiones de tu cuenta. Inicia sesión y cambia tu contraseña.',
} as const;

/** The checks' messages, the gateway's own word for word (docs/api.md). */
export const MESSAGES = {
  ...PERSONAL_DATA_MESSAGES,
  currentPasswordEmpty: 'Ingresa tu contraseña actual.',
  /** The gateway's 400 (`field: currentPassword`) for an email change without the password. */
  currentPasswordForEmail: 'Ingresa tu contraseña actual para cambiar tu correo.',
  passwordTooShort: PASSWORD_LENGTH_MESSAGES.tooShort,
  passwordTooLong: PASSWORD_LENGTH_MESSAGES.tooLong,
  passwordUnchanged: 'La nueva contraseña debe ser distinta de la actual.',
} as const;
