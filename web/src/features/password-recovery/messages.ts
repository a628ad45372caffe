/** What a member reads in the password recovery of /recuperar-contrasena. */
import { SHARED_MESSAGES } from '@/lib/messages';

export const RECOVERY_MESSAGES = {
  genericError: 'No pudimos recuperar tu contraseña. Intenta de nuevo más tarde.',
  codeIncomplete: SHARED_MESSAGES.codeIncomplete,
  pageTitle: 'Recupera tu contraseña',
  pageSubtitle: 'Crea una nueva contraseña con un código que enviamos a tu correo.',
  userTitle: 'Paso 1 de 2: tu RUT o documento',
  userIntro:
    'Te enviaremos un código de 6 dígitos al correo electrónico registrado para que crees una nueva contraseña.',
  sendCode: 'Enviar código',
  backToLogin: 'Volver a iniciar sesión',
  codeTitle: 'Paso 2 de 2: código y nueva contraseña',
  expiresIn: (minutes: number) => `El código vence en ${SHARED_MESSAGES.minutes(minutes)}.`,
  codeResent: 'Si el RUT o documento está registrado, enviamos un nuevo código.',
  newPassword: 'Nueva contraseña',
  changePassword: 'Cambiar contraseña',
  doneTitle: 'Contraseña cambiada',
  done: 'Tu contraseña fue cambiada. Inicia sesión con tu nueva contraseña.',
  logIn: SHARED_MESSAGES.logIn,
} as const;
