import { describe, expect, it } from 'vitest';

import { deviceLabel, eventLabel, isFailedAttempt } from './labels';

describe('security labels', () => {
  it('names every event kind the gateway documents in Spanish', () => {
    expect(eventLabel('login_succeeded')).toBe('Inicio de sesión');
    expect(eventLabel('wrong_password')).toBe('Intento de inicio de sesión fallido: contraseña incorrecta');
    expect(eventLabel('wrong_code')).toBe('Intento de inicio de sesión fallido: código incorrecto');
    expect(eventLabel('wrong_current_password')).toBe('Contraseña incorrecta al confirmar un cambio');
    expect(eventLabel('password_changed')).toBe('Cambio de contraseña');
    expect(eventLabel('recovery_requested')).toBe('Solicitud de recuperación de contraseña');
    expect(eventLabel('wrong_recovery_code')).toBe('Intento de recuperación fallido: código incorrecto');
    expect(eventLabel('password_reset')).toBe('Recuperación de contraseña');
    expect(eventLabel('email_changed')).toBe('Cambio de correo electrónico');
    expect(eventLabel('other_sessions_ended')).toBe('Cierre de las demás sesiones');
  });

  it('reads an unknown kind, or a name of an object property, as a generic activity', () => {
    expect(eventLabel('something_new')).toBe('Actividad de seguridad');
    expect(eventLabel('toString')).toBe('Actividad de seguridad');
  });

  it('marks only wrong passwords and codes as failed attempts', () => {
    for (const kind of ['wrong_password', 'wrong_code', 'wrong_current_password', 'wrong_recovery_code']) {
      expect(isFailedAttempt(kind)).toBe(true);
    }
    expect(isFailedAttempt('login_succeeded')).toBe(false);
    expect(isFailedAttempt('recovery_requested')).toBe(false);
  });

  it('says the browser and system, and what is unknown', () => {
    expect(deviceLabel('Chrome', 'Windows')).toBe('Chrome en Windows');
    expect(deviceLabel('Safari', null)).toBe('Safari en sistema desconocido');
    expect(deviceLabel(null, null)).toBe('Navegador desconocido');
  });
});
