/**
 * In-memory state behind the MSW handlers: the standalone gateway's demo members
 * (docs/api.md, "Demo members") and the login, code and session it keeps per browser.
 */
import { cleanRut } from '@/lib/rut';

export type MockMember = {
  user: string;
  password: string;
  name: string;
  last_name: string;
  mother_surname: string;
  email: string;
  /** null: no club account, GET /api/balance answers 406. */
  balance: number | null;
  hasMissions: boolean;
  emailVerified: boolean;
  migrating: boolean;
};

export const DEMO_PASSWORD = 'MiClub2026!';
/** The code every mocked challenge accepts. */
export const MOCK_OTP = '123456';

export const demoMembers: MockMember[] = [
  {
    user: '11.111.111-1',
    password: DEMO_PASSWORD,
    name: 'Ana',
    last_name: 'González',
    mother_surname: 'Pérez',
    email: 'ana@example.cl',
    balance: 12345,
    hasMissions: true,
    emailVerified: true,
    migrating: false,
  },
  {
    user: '22.222.222-2',
    password: DEMO_PASSWORD,
    name: 'Bruno',
    last_name: 'Soto',
    mother_surname: 'Rojas',
    email: 'bruno@example.cl',
    balance: null,
    hasMissions: false,
    emailVerified: true,
    migrating: false,
  },
  {
    user: '33.333.333-3',
    password: DEMO_PASSWORD,
    name: 'Carla',
    last_name: 'Muñoz',
    mother_surname: 'Díaz',
    email: 'carla@example.cl',
    balance: 5000,
    hasMissions: false,
    emailVerified: false,
    migrating: false,
  },
  {
    user: '44.444.444-4',
    password: DEMO_PASSWORD,
    name: 'Diego',
    last_name: 'Fuentes',
    mother_surname: 'Vera',
    email: 'diego@example.cl',
    balance: 980,
    hasMissions: false,
    emailVerified: true,
    migrating: true,
  },
];

type MockState = {
  challenge: { member: MockMember; otp: string } | null;
  session: MockMember | null;
  context: Record<string, unknown>;
  requests: { method: string; path: string; headers: Record<string, string>; body: unknown }[];
};

function initialState(): MockState {
  return {
    challenge: null,
    session: null,
    context: {
      portalEnabled: true,
      changePasswordEnable: false,
      isLoginMaintenance: false,
      recaptchaSiteKey: null,
      links: {},
    },
    requests: [],
  };
}

export const db: MockState = initialState();

export function resetDb(): void {
  Object.assign(db, initialState());
}

export function findMember(user: string): MockMember | undefined {
  const clean = cleanRut(user);
  return demoMembers.find((member) => cleanRut(member.user) === clean);
}

export function userOf(member: MockMember) {
  return {
    name: member.name,
    last_name: member.last_name,
    mother_surname: member.mother_surname,
    phone_number: '+56912345678',
    gender_id: 1,
    birth_date: '1990-05-17',
    email: member.email,
    terms_agreement: { agreement: 'accepted', event_date: '2026-01-10T12:00:00Z' },
  };
}

/** Starts a session the way the gateway would after a reload: cookie set, server knows the member. */
export function loginAs(memberName: string): MockMember {
  const member = demoMembers.find((candidate) => candidate.name === memberName);
  if (!member) throw new Error(`no demo member ${memberName}`);
  db.session = member;
  document.cookie = 'is-logged=true; Path=/';
  return member;
}
