/**
 * POST /api/simulator (anonymous): the pesos a cart would earn on a weekday, computed by the
 * same rule engine and rules as purchase posting, with one line per category.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { BodyOf, ResponseOf } from '@/lib/api-types';

/**
 * `weekDay` is 1 = lunes … 7 = domingo; the amounts are whole pesos. The form always sends every
 * field, `partnerCard` included (the gateway would default it to false).
 */
export type SimulatorRequest = Required<BodyOf<'/api/simulator', 'post'>>;

/** The categories the gateway answers lines for; the document types `category` as a plain string. */
export type SimulatorCategory = 'meat' | 'fruits_and_vegetables' | 'cleaning' | 'drinks' | 'other';

export type SimulatorResult = ResponseOf<'/api/simulator', 'post'>;

/**
 * One category's line: `rateBp` in basis points (300 = 3%), `rule` the rule's description as the
 * member reads it ("Martes 3% en frutas y verduras").
 */
export type SimulatorLine = SimulatorResult['lines'][number];

export function simulate(request: SimulatorRequest): Promise<SimulatorResult> {
  return api.post<SimulatorResult>('/api/simulator', request);
}

export function useSimulate() {
  return useMutation({ mutationKey: ['simulator'] as const, mutationFn: simulate });
}
