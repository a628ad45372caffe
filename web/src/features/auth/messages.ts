/** What a member reads in the login (page, modal and steps), as the spec words it. */
import { SHARED_MESSAGES } from '@/lib/messages';

export const LOGIN_MESSAGES = {
  genericError: 'Lo sentimos! No hemos podido iniciar sesión.',
  title: 'Inicia sesión',
  subtitle: 'Revisa tu saldo, tus movimientos y tus beneficios.',
  maintenanceTitle: 'Inicio de sesión en mantención',
  maintenanceText:
    'Estamos mejorando el inicio de sesión de Mi Club. Por ahora no es posible ingresar: vuelve a intentarlo en unos minutos.',
  credentialsForm: 'Ingresa con tu RUT y contraseña',
  password: 'Contraseña',
  passwordMissing: 'Ingresa tu contraseña.',
  show: 'Mostrar',
  hide: 'Ocultar',
  passwordToggleSuffix: ' contraseña',
  submit: 'Ingresar',
  forgotPassword: '¿Olvidaste tu contraseña?',
  register: '¿No eres socio? Regístrate',
  loginHelp: '¿Problemas para ingresar?',
  codeTitle: 'Ingresa tu código',
  codeSentTo: 'Enviamos un código de 6 dígitos a ',
  yourEmail: 'tu correo',
  expiresIn: (minutes: number) => `. Vence en ${SHARED_MESSAGES.minutes(minutes)}.`,
  codeResentTo: (destination: string) => `Te enviamos un nuevo código a ${destination}.`,
  codeIncomplete: SHARED_MESSAGES.codeIncomplete,
  validateCode: 'Validar código',
  welcome: (name: string) =>
    name ? `¡Te damos la bienvenida al nuevo Mi Club, ${name}!` : '¡Te damos la bienvenida al nuevo Mi Club!',
  migratedText:
    'Trasladamos tu cuenta al nuevo Mi Club. Tu saldo y tus datos se mantienen; desde ahora, cada vez que ingreses te enviaremos un código a tu correo para proteger tu cuenta.',
  continue: 'Continuar',
  questions: '¿Tienes dudas? ',
  faqLink: 'Preguntas frecuentes',
} as const;
