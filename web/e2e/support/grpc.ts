/**
 * The internal gRPC APIs of a running instance, called the way a store system ("pos") or the
 * back office ("ops") would: a service token from auth's IssueServiceToken, then the call with
 * `authorization: Bearer <token>` metadata. Protos are loaded from ../proto at run time.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

import type { Miclub } from './miclub';
import { REPO_DIR } from './paths';

type Callback<R> = (error: grpc.ServiceError | null, response: R) => void;
type UnaryMethod = (request: unknown, metadata: grpc.Metadata, callback: Callback<unknown>) => void;
type ServiceClient = grpc.Client & Record<string, UnaryMethod>;
type ServiceConstructor = new (address: string, credentials: grpc.ChannelCredentials) => ServiceClient;

function loadService(protoPath: string, packageName: string, service: string): ServiceConstructor {
  const definition = protoLoader.loadSync(join(REPO_DIR, 'proto', protoPath), {
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    includeDirs: [join(REPO_DIR, 'proto')],
  });
  let node: unknown = grpc.loadPackageDefinition(definition);
  for (const part of [...packageName.split('.'), service]) node = (node as Record<string, unknown>)[part];
  if (typeof node !== 'function') throw new Error(`no service ${packageName}.${service} in ${protoPath}`);
  return node as ServiceConstructor;
}

function call<R>(client: ServiceClient, method: string, request: unknown, token?: string): Promise<R> {
  const metadata = new grpc.Metadata();
  if (token) metadata.set('authorization', `Bearer ${token}`);
  return new Promise((resolve, reject) => {
    const fn = client[method];
    if (!fn) {
      reject(new Error(`no method ${method}`));
      return;
    }
    fn.call(client, request, metadata, (error, response) => (error ? reject(error) : resolve(response as R)));
  });
}

function clientFor(miclub: Miclub, protoPath: string, packageName: string, service: string, port: number): ServiceClient {
  const Service = loadService(protoPath, packageName, service);
  // Over TLS the CA is the only trust anchor, as for the services themselves.
  const credentials = miclub.grpc.ca ? grpc.credentials.createSsl(miclub.grpc.ca) : grpc.credentials.createInsecure();
  return new Service(`127.0.0.1:${port}`, credentials);
}

/** A service access token for an internal client registered at auth. */
export async function serviceToken(miclub: Miclub, clientId: 'pos' | 'ops'): Promise<string> {
  const auth = clientFor(miclub, 'auth/v1/auth.proto', 'miclub.auth.v1', 'AuthService', miclub.grpc.authPort);
  try {
    const secret = clientId === 'pos' ? miclub.grpc.posClientSecret : miclub.grpc.opsClientSecret;
    const response = await call<{ access_token: string }>(auth, 'IssueServiceToken', {
      client_id: clientId,
      client_secret: secret,
    });
    return response.access_token;
  } finally {
    auth.close();
  }
}

export type PurchaseLine = {
  category: 'CATEGORY_MEAT' | 'CATEGORY_FRUITS_AND_VEGETABLES' | 'CATEGORY_CLEANING' | 'CATEGORY_DRINKS' | 'CATEGORY_OTHER';
  amount: number;
  product_category_id: number;
};

export type PostedPurchase = { purchase_id: string; movement_id: string; accrued: number; rules_version: string };

/** accounts PostPurchase as the store system "pos": a purchase of now at a demo store. */
export async function postPurchase(
  miclub: Miclub,
  purchase: ({ memberDocument: string } | { memberCard: string }) & {
    lines: PurchaseLine[];
    paymentMethod?: string;
    purchasedAt?: Date;
  },
): Promise<PostedPurchase> {
  const token = await serviceToken(miclub, 'pos');
  const accounts = clientFor(miclub, 'accounts/v1/accounts.proto', 'miclub.accounts.v1', 'AccountsService', miclub.grpc.accountsPort);
  try {
    return await call<PostedPurchase>(
      accounts,
      'PostPurchase',
      {
        idempotency_key: `e2e-${randomUUID()}`,
        // The member as the till read them: their document, or the barcode of their card.
        ...('memberCard' in purchase ? { member_card: purchase.memberCard } : { member_document: purchase.memberDocument }),
        store_id: 'e2e-001',
        store_name: 'Lider e2e',
        purchased_at: (purchase.purchasedAt ?? new Date()).toISOString(),
        payment_method: purchase.paymentMethod ?? 'PAYMENT_METHOD_CASH',
        lines: purchase.lines,
      },
      token,
    );
  } finally {
    accounts.close();
  }
}

/** A movement explained, as accounts answers store systems (GetMemberMovementDetail). */
export type GrpcMovementDetail = {
  movement: { movement_id: string; amount: number; status: string };
  confirms_at: string;
  purchase: { rules_version: string; has_breakdown: boolean; lines: { category: string; amount: number; earned: number; rate_bp: number; rule: string }[] };
};

/** accounts GetMemberMovementDetail as the store system "pos": the member named by document. */
export async function memberMovementDetail(miclub: Miclub, memberDocument: string, movementId: string): Promise<GrpcMovementDetail> {
  const token = await serviceToken(miclub, 'pos');
  const accounts = clientFor(miclub, 'accounts/v1/accounts.proto', 'miclub.accounts.v1', 'AccountsService', miclub.grpc.accountsPort);
  try {
    const answer = await call<{ detail: GrpcMovementDetail }>(
      accounts,
      'GetMemberMovementDetail',
      { member_document: memberDocument, movement_id: movementId },
      token,
    );
    return answer.detail;
  } finally {
    accounts.close();
  }
}

export type FlagName = 'FLAG_NAME_PORTAL_ENABLED' | 'FLAG_NAME_CHANGE_PASSWORD_ENABLE' | 'FLAG_NAME_IS_LOGIN_MAINTENANCE';

/** content SetFlag as the back office "ops". */
export async function setFlag(miclub: Miclub, flag: FlagName, value: boolean): Promise<void> {
  const token = await serviceToken(miclub, 'ops');
  const content = clientFor(miclub, 'content/v1/content.proto', 'miclub.content.v1', 'ContentService', miclub.grpc.contentPort);
  try {
    await call(content, 'SetFlag', { flag, value }, token);
  } finally {
    content.close();
  }
}

/** content PublishTerms as the back office "ops": a new version of the terms, in force now. */
export async function publishTerms(
  miclub: Miclub,
  terms: { version: string; title: string; body: string },
): Promise<{ created: boolean }> {
  const token = await serviceToken(miclub, 'ops');
  const content = clientFor(miclub, 'content/v1/content.proto', 'miclub.content.v1', 'ContentService', miclub.grpc.contentPort);
  try {
    return await call<{ created: boolean }>(content, 'PublishTerms', { ...terms, published_at: '' }, token);
  } finally {
    content.close();
  }
}
