/** What a member reads while registering in Mi Club and verifying the email. */
import { SHARED_MESSAGES } from '@/lib/messages';
import { PERSONAL_DATA_MESSAGES } from '@/lib/personal-data';

export const REGISTRATION_COPY = {
  pageTitle: 'Regístrate en Mi Club',
  pageSubtitle: 'Acumula pesos en cada compra y accede a beneficios exclusivos.',
  loading: 'Cargando tu registro…',
  stepsLabel: 'Pasos del registro',
  step1: 'Paso 1 de 3: tu documento',
  step2: 'Paso 2 de 3: tus datos',
  step3: 'Paso 3 de 3: tu contraseña',
  stepDocument: 'Documento',
  stepPersonalData: 'Datos personales',
  stepPassword: 'Contraseña',
  documentQuestion: '¿Con qué documento te registras?',
  chileanRut: 'RUT chileno',
  foreignDocument: 'Documento extranjero',
  rut: 'RUT',
  documentNumber: 'Número de documento',
  cardSerialHint:
    'Es el número de serie de tu cédula de identidad: en la cédula actual aparece en el frente como ' +
    '«Número de documento» (9 dígitos, por ejemplo 100.123.456); en las cédulas antiguas empieza con la letra A.',
  documentType: 'Tipo de documento',
  chooseDocumentType: 'Selecciona el tipo de documento',
  passport: 'Pasaporte',
  foreignNationalId: 'Documento de identidad extranjero',
  foreignNumberHint: 'Tal como aparece en tu documento: entre 5 y 20 letras y números.',
  issuingCountry: 'País emisor',
  chooseCountry: 'Selecciona un país',
  continue: 'Continuar',
  alreadyMember: '¿Ya eres parte de Mi Club? Inicia sesión',
  personalIntro: 'Todos los datos son obligatorios, salvo el apellido materno.',
  email: 'Correo electrónico',
  emailHint: 'Te enviaremos un enlace a este correo para activar tu cuenta.',
  back: SHARED_MESSAGES.back,
  cancelRegistration: 'Cancelar registro',
  password: 'Contraseña',
  acceptTerms: 'Acepto los términos y condiciones de Mi Club',
  readTerms: 'Leer los términos y condiciones (se abre en una pestaña nueva)',
  createAccount: 'Crear mi cuenta',
  doneTitle: '¡Ya casi eres parte de Mi Club!',
  doneText: (maskedEmail: string) =>
    `Te enviamos un correo a ${maskedEmail} para verificar tu dirección. ` +
    'Ábrelo para activar tu cuenta y luego inicia sesión.',
  notReceived: '¿No te llegó el correo? Pide uno nuevo',
  cancelled: 'Cancelaste tu registro. Puedes comenzar de nuevo cuando quieras.',
  logIn: SHARED_MESSAGES.logIn,
  verifyTitle: 'Verifica tu correo electrónico',
  verifySubtitle: 'Te enviaremos un nuevo enlace para activar tu cuenta al correo que registraste.',
  verifyFormTitle: 'Reenviar correo de verificación',
  verificationSent:
    'Si tu cuenta está pendiente de verificación, te enviamos un nuevo correo. Revisa tu bandeja de entrada.',
  resendEmail: 'Reenviar correo',
  backToLogin: 'Volver a iniciar sesión',
} as const;

/** A failure with no answer, a 5xx, or a body that is not the gateway's: the same button retries. */
export const REGISTRATION_FAILED =
  'No pudimos completar tu registro por un problema de conexión o del servicio. Intenta de nuevo en unos momentos.';

export const IDENTITY_MESSAGES = {
  rutEmpty: 'Ingresa tu RUT.',
  rutInvalid: 'El RUT ingresado no es válido.',
  serialEmpty: 'Ingresa el número de documento de tu cédula.',
  serialInvalid: 'El número de documento no es válido.',
  documentType: 'Selecciona el tipo de documento.',
  foreignEmpty: 'Ingresa el número de tu documento.',
  foreignInvalid: 'El número de documento debe tener entre 5 y 20 letras y números, con al menos una letra.',
  country: 'Selecciona el país que emitió tu documento.',
} as const;

export const REGISTRATION_MESSAGES = {
  ...PERSONAL_DATA_MESSAGES,
  underage: 'Debes ser mayor de 18 años para registrarte.',
  terms: 'Debes aceptar los términos y condiciones para registrarte.',
} as const;
