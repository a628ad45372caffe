/**
 * The default answers of the component tests' mock gateway: the happy path of every route, from
 * the fixtures (../fixtures), for a logged-in Ana or a visitor. They decide nothing a server
 * decides (no password, code, attempt, cooldown, step, maintenance or validation rule): a test
 * that needs a refusal or another answer states it with `server.use` and `apiError`. What the app
 * sent is recorded for every request in ./requests; every answer is held to docs/openapi.json
 * (../contract.ts).
 */
import { http, HttpResponse } from 'msw';

import type { BodyOf, Schemas } from '@/lib/api-types';

import { apiError } from '../api-errors';
import {
  anaBalance,
  novemberMovements,
  novemberOldPurchaseDetail,
  novemberPurchaseDetail,
  octoberMovementsFirstPage,
  octoberMovementsSecondPage,
} from '../fixtures/account';
import { anaCard } from '../fixtures/card';
import { alliances, anaMissions, banners, generalFaqs, loginFaqs, promotions, tuesdayCartResult } from '../fixtures/content';
import {
  anaEmailConfirmed,
  anaEmailRestored,
  anaProfileSaved,
  genders,
  terms,
  termsAccepted,
  termsRejected,
} from '../fixtures/profile';
import { recoveryResent, recoveryStarted } from '../fixtures/recovery';
import { noraRegistered, registrationAtStep2, registrationAtStep3 } from '../fixtures/registration';
import { anaSecurityEvents, anaSessions } from '../fixtures/security';
import { anaLogin, anaProfile, context, otpSent, refreshed } from '../fixtures/session';
import { identityConfirmed, unsubscribed, unsubscribeReasons } from '../fixtures/unsubscribe';

const noStore = { headers: { 'Cache-Control': 'no-store' } };
const publicCache = { headers: { 'Cache-Control': 'public, max-age=60' } };
const noContent = () => new HttpResponse(null, { status: 204 });

/** The `is-logged` cookie the gateway sets and clears beside its httpOnly session cookie (invisible here). */
export function setLoggedCookie(on: boolean): void {
  document.cookie = on ? 'is-logged=true; Path=/' : 'is-logged=; Path=/; Max-Age=0';
}

/** Ana's movements by `year-month-page`; any other month answers an empty page. */
const ANA_MOVEMENTS: Record<string, Schemas['MovementsPage']> = {
  '2026-11-1': novemberMovements,
  '2026-10-1': octoberMovementsFirstPage,
  '2026-10-2': octoberMovementsSecondPage,
};

const sessionHandlers = [
  http.get('/api/context', () => HttpResponse.json(context)),
  http.post('/api/login', () => HttpResponse.json(otpSent)),
  http.post('/api/resend-otp', () => HttpResponse.json(otpSent)),
  http.post('/api/validate-otp', () => {
    setLoggedCookie(true);
    return HttpResponse.json(anaLogin);
  }),
  http.post('/api/refresh', () => HttpResponse.json(refreshed)),
  http.post('/api/logout', () => {
    setLoggedCookie(false);
    return noContent();
  }),
];

const accountHandlers = [
  http.get('/api/profile', () => HttpResponse.json(anaProfile)),
  http.get('/api/balance', () => HttpResponse.json(anaBalance, noStore)),
  http.get('/api/card', () => HttpResponse.json(anaCard, noStore)),
  http.get('/api/movements', ({ request }) => {
    const params = new URL(request.url).searchParams;
    const year = Number(params.get('year'));
    const month = Number(params.get('month'));
    const empty = { year, month, page: 1, pageSize: 10, totalCount: 0, totalPages: 0, items: [] };
    return HttpResponse.json(ANA_MOVEMENTS[`${year}-${month}-${params.get('page')}`] ?? empty, noStore);
  }),
  http.get('/api/movements/:movementId', ({ params }) => {
    const detail = [novemberPurchaseDetail, novemberOldPurchaseDetail].find((d) => d.id === params.movementId);
    if (detail) return HttpResponse.json(detail, noStore);
    // No movement of Ana's has that id: the gateway's 404 (whoever else's it may be).
    return apiError('ERR_NOT_FOUND');
  }),
  http.get('/api/missions', () => HttpResponse.json(anaMissions, noStore)),
  http.get('/api/security/sessions', () => HttpResponse.json(anaSessions, noStore)),
  http.get('/api/security/events', () => HttpResponse.json(anaSecurityEvents, noStore)),
  http.delete('/api/security/sessions/:id', noContent),
  http.post('/api/security/sessions/close-others', () => HttpResponse.json({ closed: 1 })),
  http.get('/api/profile/genders', () => HttpResponse.json(genders)),
  http.put('/api/profile', () => HttpResponse.json(anaProfileSaved)),
  http.post('/api/profile/email/resend', noContent),
  http.post('/api/profile/email/confirm', () => HttpResponse.json(anaEmailConfirmed)),
  http.post('/api/profile/email/restore', () => HttpResponse.json(anaEmailRestored, noStore)),
  http.post('/api/profile/password', () => {
    // The gateway revokes every session of the member and clears the cookies.
    setLoggedCookie(false);
    return noContent();
  }),
  http.get('/api/terms-and-conditions', () => HttpResponse.json(terms, { headers: { 'Cache-Control': 'no-cache' } })),
  http.post('/api/terms-and-conditions', async ({ request }) => {
    const body = (await request.json()) as BodyOf<'/api/terms-and-conditions', 'post'>;
    return HttpResponse.json(body.acceptTermsAndConditions ? termsAccepted : termsRejected);
  }),
];

const contentHandlers = [
  http.get('/api/promotions', () => HttpResponse.json(promotions, publicCache)),
  http.get('/api/alliances', () => HttpResponse.json(alliances, publicCache)),
  http.get('/api/banners', () => HttpResponse.json(banners, publicCache)),
  http.get('/api/faqs', ({ request }) => {
    const audience = new URL(request.url).searchParams.get('audience');
    return HttpResponse.json(audience === 'login' ? loginFaqs : generalFaqs, publicCache);
  }),
  http.post('/api/simulator', () => HttpResponse.json(tuesdayCartResult)),
];

const passwordRecoveryHandlers = [
  http.post('/api/password-recovery', () => HttpResponse.json(recoveryStarted)),
  http.post('/api/password-recovery/resend', () => HttpResponse.json(recoveryResent)),
  http.post('/api/password-recovery/reset', noContent),
];

const registrationHandlers = [
  // A visitor has no registration in progress until step 1 starts one.
  http.get('/api/registration', noContent),
  http.post('/api/registration', () => HttpResponse.json(registrationAtStep2, { status: 201 })),
  http.put('/api/registration/personal-data', () => HttpResponse.json(registrationAtStep3)),
  http.post('/api/registration/complete', () => HttpResponse.json(noraRegistered, { status: 201 })),
  http.delete('/api/registration', noContent),
  http.post('/api/registration/verification-email', () => HttpResponse.json({}, { status: 202 })),
];

const unsubscribeHandlers = [
  http.get('/api/unsubscribe/reasons', () => HttpResponse.json(unsubscribeReasons)),
  http.post('/api/unsubscribe/validate', () => HttpResponse.json(identityConfirmed)),
  http.post('/api/unsubscribe', () => {
    // Every session of the member revoked and the cookies cleared.
    setLoggedCookie(false);
    return HttpResponse.json(unsubscribed);
  }),
];

export const handlers = [
  ...sessionHandlers,
  ...accountHandlers,
  ...contentHandlers,
  ...passwordRecoveryHandlers,
  ...registrationHandlers,
  ...unsubscribeHandlers,
];
