/**
 * reCAPTCHA v3 tokens for the `recaptcha-token` header. With no site key (standalone, whose
 * gateway uses a pass-through verifier) Google's script is never loaded and the token is
 * "standalone".
 */

export const STANDALONE_RECAPTCHA_TOKEN = 'standalone';

type Grecaptcha = {
  ready: (callback: () => void) => void;
  execute: (siteKey: string, options: { action: string }) => Promise<string>;
};

declare global {
  interface Window {
    grecaptcha?: Grecaptcha;
  }
}

const scripts = new Map<string, Promise<Grecaptcha>>();

function loadScript(siteKey: string): Promise<Grecaptcha> {
  let loading = scripts.get(siteKey);
  if (!loading) {
    loading = new Promise<Grecaptcha>((resolve, reject) => {
      const script = document.createElement('script');
      script.src = `https://www.google.com/recaptcha/api.js?render=${encodeURIComponent(siteKey)}&hl=es-419`;
      script.async = true;
      script.onload = () => {
        const grecaptcha = window.grecaptcha;
        if (grecaptcha) grecaptcha.ready(() => resolve(grecaptcha));
        else reject(new Error('reCAPTCHA did not initialise'));
      };
      script.onerror = () => {
        scripts.delete(siteKey);
        reject(new Error('reCAPTCHA script failed to load'));
      };
      document.head.appendChild(script);
    });
    scripts.set(siteKey, loading);
  }
  return loading;
}

export async function getRecaptchaToken(siteKey: string | null | undefined, action: string): Promise<string> {
  if (!siteKey) return STANDALONE_RECAPTCHA_TOKEN;
  const grecaptcha = await loadScript(siteKey);
  return grecaptcha.execute(siteKey, { action });
}
