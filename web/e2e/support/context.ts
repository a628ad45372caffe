/**
 * Waiting for what the gateway's GET /api/context (the app's minute poll) says about a runtime
 * flag, after a test switched it at content: the gateway caches the flags (1 s in the e2e runs).
 */
export type ContextFlag = 'portalEnabled' | 'changePasswordEnable' | 'isLoginMaintenance';

export async function waitForContextFlag(baseUrl: string, flag: ContextFlag, value: boolean): Promise<void> {
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    const context = (await (await fetch(`${baseUrl}/api/context`)).json()) as Partial<Record<ContextFlag, boolean>>;
    if (context[flag] === value) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`the gateway did not report ${flag}=${value} within 45 s`);
}
