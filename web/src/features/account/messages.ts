/** What a member reads on Mi Cuenta: the greeting, the menu and the balance. */
import { SHARED_MESSAGES } from '@/lib/messages';

export const ACCOUNT_COPY = {
  greeting: (name: string) => (name ? `Hola, ${name}` : 'Hola'),
  menuLabel: 'Menú de mi cuenta',
  logOut: 'Cerrar sesión',
  balanceTitle: 'Tu saldo Mi Club',
  balanceLoading: 'Cargando tu saldo…',
  balanceNote: 'Úsalo como dinero en tus compras en Lider.',
  balanceUpdated: (when: string) => ` Actualizado al ${when}.`,
  balanceFailed: 'No pudimos cargar tu saldo. Intenta de nuevo más tarde.',
  /** After joining in place, above the new account's balance. */
  joined: '¡Ya eres parte de Mi Club! Desde hoy acumulas saldo en cada compra.',
  noAccount: SHARED_MESSAGES.noAccount,
  retry: SHARED_MESSAGES.retry,
} as const;

/** Joining in place from the without-account state of Mi Cuenta (issue #19, item 1). */
export const JOIN_COPY = {
  title: 'Únete a Mi Club',
  intro: 'Activa tu cuenta para empezar a acumular saldo en cada compra. Estos son tus datos:',
  dataLabel: 'Tus datos',
  name: 'Nombre',
  document: (documentType: string) => (documentType === 'RUT' ? 'RUT' : 'Documento'),
  email: 'Correo electrónico',
  phone: 'Teléfono',
  dataNote: 'Si algo no está bien, puedes corregirlo en Mis Datos cuando quieras.',
  dataLoading: 'Cargando tus datos…',
  acceptTerms: 'Acepto los términos y condiciones de Mi Club',
  readTerms: 'Leer términos y condiciones',
  termsRequired: 'Debes aceptar los términos y condiciones para unirte a Mi Club.',
  submit: 'Unirme a Mi Club',
  failed: 'No pudimos crear tu cuenta Mi Club. Intenta de nuevo más tarde.',
} as const;
