/**
 * The gateway's password rules (docs/api.md, "Password rules", NIST SP 800-63B) as far as a
 * browser can check them: the length only, with the gateway's own messages. The common-password
 * list and "not the current one" stay with the gateway, whose 422 lands under the field.
 */

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 64;

export const PASSWORD_LENGTH_MESSAGES = {
  tooShort: 'La contraseña debe tener al menos 8 caracteres.',
  tooLong: 'La contraseña puede tener hasta 64 caracteres.',
} as const;

/** The help text under every new-password field. */
export const PASSWORD_RULES =
  'Usa entre 8 y 64 caracteres. Puedes usar espacios, frases y cualquier carácter: no necesitas combinar ' +
  'mayúsculas, números ni símbolos. Evita contraseñas comunes o fáciles de adivinar.';

/** Characters, not UTF-16 units: "ñ" or an emoji count once, as the server counts them. */
export function passwordLength(password: string): number {
  return Array.from(password).length;
}

/** The gateway's message when `password` is too short or too long, else undefined. */
export function passwordLengthError(password: string): string | undefined {
  const length = passwordLength(password);
  if (length < PASSWORD_MIN_LENGTH) return PASSWORD_LENGTH_MESSAGES.tooShort;
  if (length > PASSWORD_MAX_LENGTH) return PASSWORD_LENGTH_MESSAGES.tooLong;
  return undefined;
}
