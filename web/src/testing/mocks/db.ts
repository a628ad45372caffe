/**
 * In-memory state behind the MSW handlers: the standalone gateway's demo members
 * (docs/api.md, "Demo members"), their profiles, terms decisions and movements, and the login,
 * code, password recovery and session it keeps per browser. `resetDb` restores all of it before each test.
 */
import { cleanRut } from '@/lib/rut';

export type MockTermsAgreement = { agreement: 'accepted' | 'rejected' | null; event_date: string | null };

export type MockMember = {
  user: string;
  password: string;
  name: string;
  last_name: string;
  mother_surname: string;
  phone_number: string;
  gender_id: number | null;
  birth_date: string | null;
  email: string;
  /** Profile: false after an email change until its link is opened. */
  emailConfirmed: boolean;
  document_type: 'RUT' | 'FOREIGN';
  document_number: string;
  terms: MockTermsAgreement;
  /** null: no club account, GET /api/balance and /api/movements answer 406. */
  balance: number | null;
  hasMissions: boolean;
  /** Login: ERR_EMAIL_NOT_VERIFIED while false. */
  emailVerified: boolean;
  migrating: boolean;
  /** Set by POST /api/unsubscribe: login then answers ERR_MEMBER_UNSUBSCRIBED. */
  unsubscribedAt: string | null;
};

export type MockMovement = {
  id: string;
  kind: 'accrual' | 'redemption' | 'expiration' | 'adjustment';
  status: 'pending' | 'confirmed';
  amount: number;
  description: string;
  occurredAt: string;
};

export const DEMO_PASSWORD = 'MiClub2026!';
/** The code every mocked challenge accepts. */
export const MOCK_OTP = '123456';
/**
 * "Now" for tests of dated screens (Mis Movimientos, birth dates): a Saturday afternoon in
 * Santiago. Tests fake only `Date` to it; the seeded movements are placed around it.
 */
export const MOCK_NOW = new Date('2026-11-21T15:00:00Z');

const ACCEPTED_IN_JANUARY: MockTermsAgreement = { agreement: 'accepted', event_date: '2026-01-10T12:00:00Z' };

function demoMembers(): MockMember[] {
  const base = {
    password: DEMO_PASSWORD,
    phone_number: '+56912345678',
    gender_id: 1,
    birth_date: '1990-05-17',
    emailConfirmed: true,
    document_type: 'RUT' as const,
    terms: ACCEPTED_IN_JANUARY,
    hasMissions: false,
    emailVerified: true,
    migrating: false,
    unsubscribedAt: null,
  };
  return [
    {
      ...base,
      user: '11.111.111-1',
      document_number: '11111111-1',
      name: 'Ana',
      last_name: 'González',
      mother_surname: 'Pérez',
      email: 'ana@example.cl',
      balance: 12345,
      hasMissions: true,
    },
    {
      ...base,
      user: '22.222.222-2',
      document_number: '22222222-2',
      name: 'Bruno',
      last_name: 'Soto',
      mother_surname: 'Rojas',
      email: 'bruno@example.cl',
      gender_id: 2,
      balance: null,
    },
    {
      ...base,
      user: '33.333.333-3',
      document_number: '33333333-3',
      name: 'Carla',
      last_name: 'Muñoz',
      mother_surname: 'Díaz',
      email: 'carla@example.cl',
      terms: { agreement: null, event_date: null },
      balance: 5000,
      emailVerified: false,
      emailConfirmed: false,
    },
    {
      ...base,
      user: '44.444.444-4',
      document_number: '44444444-4',
      name: 'Diego',
      last_name: 'Fuentes',
      mother_surname: 'Vera',
      email: 'diego@example.cl',
      birth_date: null,
      gender_id: null,
      balance: 980,
      migrating: true,
    },
  ];
}

export const MOCK_GENDERS = [
  { id: 1, label: 'Femenino' },
  { id: 2, label: 'Masculino' },
  { id: 3, label: 'Prefiero no decir' },
  { id: 6, label: 'No me identifico con las opciones disponibles' },
  { id: 7, label: 'Otros' },
];

export const MOCK_TERMS = {
  version: '2026-02',
  title: 'Términos y condiciones del programa Mi Club',
  body:
    'Mi Club es el programa de beneficios de Lider para sus clientes.\n\n' +
    'Cada compra acumula saldo en pesos según las reglas vigentes.\n\n' +
    'El saldo acumulado se puede usar como medio de pago en las tiendas adheridas.',
  publishedAt: '2026-02-01T12:00:00Z',
};

function movement(
  id: string,
  occurredAt: string,
  kind: MockMovement['kind'],
  amount: number,
  description: string,
  status: MockMovement['status'] = 'confirmed',
): MockMovement {
  return { id, kind, status, amount, description, occurredAt };
}

/**
 * Ana's ledger around MOCK_NOW: November 2026 (the current month) has 3, October 13 (two
 * pages), September none, August 2.
 */
function anaMovements(): MockMovement[] {
  const october = Array.from({ length: 13 }, (_, i) => {
    const day = String(i + 1).padStart(2, '0');
    if (i === 4) return movement(`oct-${i}`, `2026-10-${day}T15:00:00Z`, 'redemption', -2000, 'Canje en caja');
    if (i === 8) return movement(`oct-${i}`, `2026-10-${day}T15:00:00Z`, 'expiration', -315, 'Vencimiento de pesos');
    return movement(`oct-${i}`, `2026-10-${day}T15:00:00Z`, 'accrual', 100 * (i + 1), `Compra ${i + 1} en Lider`);
  });
  return [
    movement('nov-1', '2026-11-02T13:00:00Z', 'accrual', 3190, 'Compra en Lider.cl'),
    movement('nov-2', '2026-11-10T18:30:00Z', 'adjustment', 500, 'Ajuste por reclamo'),
    movement('nov-3', '2026-11-20T22:00:00Z', 'accrual', 1250, 'Compra en Lider Providencia', 'pending'),
    ...october,
    movement('aug-1', '2026-08-03T14:00:00Z', 'accrual', 12345, 'Compra en Lider Ñuñoa'),
    movement('aug-2', '2026-08-25T14:00:00Z', 'redemption', -1000, 'Canje en caja'),
  ];
}

/**
 * The pending password recovery the `mc_reset` cookie stands for. `member` is null when the RUT
 * or document belongs to nobody: the gateway answers the same, and no code can ever match.
 */
export type MockRecovery = { member: MockMember | null; code: string; attempts: number };

/** Wrong codes a recovery allows before ERR_OTP_TOO_MANY_ATTEMPTS ends it. */
export const MOCK_RECOVERY_MAX_ATTEMPTS = 5;

/** The identity of step 1 as the gateway's view gives it back. */
export type MockRegistrationIdentity =
  | { documentType: 'RUT'; rut: string; documentNumber: string }
  | { documentType: 'PASSPORT' | 'NATIONAL_ID'; documentNumber: string; country: string };

export type MockRegistrationPersonalData = {
  name: string;
  lastName: string;
  motherSurname: string;
  phoneNumber: string;
  birthDate: string;
  genderId: number;
  email: string;
};

/**
 * The registration flow the browser's `mc_registration` cookie stands for (one browser in
 * tests). Set `expired` to make the gateway answer ERR_REGISTRATION_EXPIRED from then on.
 */
export type MockRegistration = {
  step: 2 | 3;
  identity: MockRegistrationIdentity;
  personalData: MockRegistrationPersonalData | null;
  expired: boolean;
};

/** ID card serial numbers the civil registry does not recognise (ERR_IDENTITY_NOT_VERIFIED). */
export const UNVERIFIABLE_CARD_SERIAL = '999999999';

export const MOCK_UNSUBSCRIBE_REASONS = [
  { id: 1, label: 'No uso los beneficios del club', requiresText: false },
  { id: 2, label: 'Recibo demasiados correos', requiresText: false },
  { id: 3, label: 'No estoy de acuerdo con los términos y condiciones', requiresText: false },
  { id: 99, label: 'Otro motivo', requiresText: true },
];

export type MockMission = {
  missionId: string;
  categoryId: number;
  title: string;
  description: string;
  goalKind: 'amount' | 'purchases';
  goal: number;
  progress: number;
  reward: number;
  startsOn: string;
  endsOn: string;
  status: 'in_progress' | 'completed' | 'expired';
  completedAt: string | null;
};

/** Ana's missions: one by amount, one by purchases, one completed, one expired, one unknown icon. */
export function anaMissions(): MockMission[] {
  const base = { startsOn: '2026-11-01', endsOn: '2026-12-31', completedAt: null, status: 'in_progress' as const };
  return [
    {
      ...base,
      missionId: 'm-carnes',
      categoryId: 10,
      title: 'Misión parrillera',
      description: 'Compra $20.000 en carnes',
      goalKind: 'amount',
      goal: 20000,
      progress: 12000,
      reward: 1000,
    },
    {
      ...base,
      missionId: 'm-aceites',
      categoryId: 2,
      title: 'Cocina con aceite',
      description: 'Haz 3 compras con aceites',
      goalKind: 'purchases',
      goal: 3,
      progress: 2,
      reward: 500,
    },
    {
      ...base,
      missionId: 'm-licores',
      categoryId: 34,
      title: 'Brindis de fin de año',
      description: 'Compra $15.000 en licores',
      goalKind: 'amount',
      goal: 15000,
      progress: 15000,
      reward: 1500,
      status: 'completed',
      completedAt: '2026-11-15T18:00:00Z',
    },
    {
      ...base,
      missionId: 'm-ropa',
      categoryId: 57,
      title: 'Renueva tu ropa',
      description: 'Compra $30.000 en vestuario',
      goalKind: 'amount',
      goal: 30000,
      progress: 5000,
      reward: 2000,
      startsOn: '2026-10-01',
      endsOn: '2026-10-31',
      status: 'expired',
    },
    {
      ...base,
      missionId: 'm-nueva',
      categoryId: 99,
      title: 'Misión sorpresa',
      description: 'Haz 1 compra en la nueva categoría',
      goalKind: 'purchases',
      goal: 1,
      progress: 0,
      reward: 300,
    },
  ];
}

export const MOCK_PROMOTIONS = [
  {
    id: 'martes-frutas',
    title: 'Martes de frutas y verduras',
    description: 'Acumula 3% en frutas y verduras todos los martes.',
    imageUrl: '/images/promociones/martes-frutas.svg',
    linkUrl: 'https://www.lider.cl/promociones/martes',
    badge: 'Solo martes',
    startsOn: '2026-11-01',
    endsOn: '2026-12-31',
  },
  {
    id: 'lunes-bci',
    title: 'Lunes con Tarjeta Lider BCI',
    description: 'Acumula 6% los lunes pagando con tu Tarjeta Lider BCI.',
    imageUrl: '/images/promociones/lunes-bci.svg',
    linkUrl: '/alianzas',
    badge: '',
    startsOn: '2026-11-01',
    endsOn: '2026-12-31',
  },
];

export const MOCK_ALLIANCES = [
  {
    id: 'bci-cuotas',
    partner: 'Banco BCI',
    title: '3 cuotas sin interés',
    description: 'Paga en 3 cuotas sin interés con tu Tarjeta Lider BCI.',
    imageUrl: '/images/alianzas/bci-cuotas.svg',
    linkUrl: 'https://www.tarjetaliderbci.cl/',
    conditions: 'Compras sobre $30.000. No acumulable con otras promociones.',
    startsOn: '2026-11-01',
    endsOn: '2026-12-31',
  },
];

export const MOCK_BANNERS = [
  {
    id: 'acumula-08',
    title: 'Acumula 0,8% en todas tus compras',
    subtitle: 'Y 0,9% con Tarjeta Lider BCI',
    imageUrl: '/images/banners/acumula-08.svg',
    imageAlt: 'Carro de supermercado con el texto 0,8% de acumulación',
    linkUrl: '/promociones',
  },
  {
    id: 'lunes-6',
    title: 'Lunes 6% con Tarjeta Lider BCI',
    subtitle: '',
    imageUrl: '/images/banners/lunes-6.svg',
    imageAlt: 'Tarjeta Lider BCI con el texto lunes 6%',
    linkUrl: '',
  },
];

export const MOCK_FAQS = {
  login: [
    { id: 'login-codigo', question: '¿Por qué me piden un código?', answer: 'Por tu seguridad.\n\nTe lo enviamos a tu correo.' },
    { id: 'login-clave', question: 'Olvidé mi contraseña', answer: 'Recupérala desde ¿Olvidaste tu contraseña?' },
  ],
  general: [{ id: 'general-saldo', question: '¿Cómo uso mi saldo?', answer: 'Como medio de pago en caja.' }],
};

type MockState = {
  members: MockMember[];
  registration: MockRegistration | null;
  /** Users for whom POST /api/registration/verification-email mailed a new link. */
  verificationEmailsSent: string[];
  unsubscribeReasons: typeof MOCK_UNSUBSCRIBE_REASONS;
  challenge: { member: MockMember; otp: string } | null;
  /** Read `db.recovery.code` in tests: the code the recovery mail carried. */
  recovery: MockRecovery | null;
  /** Recovery codes mailed so far (each new one differs from the last). */
  recoveryCodesSent: number;
  session: MockMember | null;
  context: Record<string, unknown>;
  genders: { id: number; label: string }[];
  terms: typeof MOCK_TERMS;
  /** Movements by member user. */
  movements: Record<string, MockMovement[]>;
  /** Confirmation links mailed: token → member and the address it confirms. */
  emailConfirmations: { token: string; member: MockMember; email: string }[];
  /**
   * Links of the notice "Tu correo de Mi Club cambió" that POST /api/profile/email/restore
   * answers 200 with `maskedEmail` (then spent); any other token answers ERR_CONFIRMATION_INVALID.
   */
  emailRestorations: { token: string; maskedEmail: string }[];
  /** Missions by member user; a member without an entry has none. */
  missions: Record<string, MockMission[]>;
  /** Users whose history is still loading: GET /api/missions answers 409. */
  missionsLoading: string[];
  promotions: typeof MOCK_PROMOTIONS;
  alliances: typeof MOCK_ALLIANCES;
  banners: typeof MOCK_BANNERS;
  faqs: typeof MOCK_FAQS;
};

function initialState(): MockState {
  const members = demoMembers();
  return {
    members,
    registration: null,
    verificationEmailsSent: [],
    unsubscribeReasons: MOCK_UNSUBSCRIBE_REASONS.map((reason) => ({ ...reason })),
    challenge: null,
    recovery: null,
    recoveryCodesSent: 0,
    session: null,
    context: {
      portalEnabled: true,
      changePasswordEnable: false,
      isLoginMaintenance: false,
      recaptchaSiteKey: null,
      links: {},
    },
    genders: MOCK_GENDERS.map((gender) => ({ ...gender })),
    terms: { ...MOCK_TERMS },
    movements: { '11.111.111-1': anaMovements() },
    emailConfirmations: [],
    emailRestorations: [],
    missions: { '11.111.111-1': anaMissions() },
    missionsLoading: [],
    promotions: MOCK_PROMOTIONS.map((promotion) => ({ ...promotion })),
    alliances: MOCK_ALLIANCES.map((alliance) => ({ ...alliance })),
    banners: MOCK_BANNERS.map((banner) => ({ ...banner })),
    faqs: { login: [...MOCK_FAQS.login], general: [...MOCK_FAQS.general] },
  };
}

export const db: MockState = initialState();

export function resetDb(): void {
  Object.assign(db, initialState());
}

export function findMember(user: string): MockMember | undefined {
  const clean = cleanRut(user);
  return db.members.find((member) => cleanRut(member.user) === clean);
}

export function memberNamed(name: string): MockMember {
  const member = db.members.find((candidate) => candidate.name === name);
  if (!member) throw new Error(`no demo member ${name}`);
  return member;
}

/** "User returned by login" (docs/api.md). */
export function userOf(member: MockMember) {
  return {
    name: member.name,
    last_name: member.last_name,
    mother_surname: member.mother_surname,
    phone_number: member.phone_number,
    gender_id: member.gender_id,
    birth_date: member.birth_date,
    email: member.email,
    terms_agreement: { ...member.terms },
  };
}

/** What GET and PUT /api/profile answer: the user plus email status and document. */
export function profileOf(member: MockMember) {
  return {
    ...userOf(member),
    email_confirmed: member.emailConfirmed,
    documentType: member.document_type,
    documentNumber: member.document_number,
  };
}

/** Starts a session the way the gateway would after a reload: cookie set, server knows the member. */
export function loginAs(memberName: string): MockMember {
  const member = memberNamed(memberName);
  db.session = member;
  document.cookie = 'is-logged=true; Path=/';
  return member;
}

/** "Mails" a new recovery code: six digits, different from the previous one. */
export function nextRecoveryCode(): string {
  db.recoveryCodesSent += 1;
  return String(654320 + db.recoveryCodesSent);
}
