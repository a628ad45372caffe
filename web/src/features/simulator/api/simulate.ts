/**
 * POST /api/simulator (anonymous): the pesos a cart would earn on a weekday, computed by the
 * same rule engine and rules as purchase posting, with one line per category.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export type SimulatorRequest = {
  /** 1 = lunes … 7 = domingo. */
  weekDay: number;
  meatAmount: number;
  fruitsAndVegetablesAmount: number;
  cleaningAmount: number;
  drinksAmount: number;
  otherAmount: number;
  partnerCard: boolean;
};

export type SimulatorCategory = 'meat' | 'fruits_and_vegetables' | 'cleaning' | 'drinks' | 'other';

export type SimulatorLine = {
  category: SimulatorCategory;
  amount: number;
  earned: number;
  /** Basis points: 300 = 3%. */
  rateBp: number;
  /** The rule's description as the member reads it ("Martes 3% en frutas y verduras"). */
  rule: string;
};

export type SimulatorResult = { totalEarned: number; rulesVersion: string; lines: SimulatorLine[] };

export function simulate(request: SimulatorRequest): Promise<SimulatorResult> {
  return api.post<SimulatorResult>('/api/simulator', request);
}

export function useSimulate() {
  return useMutation({ mutationKey: ['simulator'] as const, mutationFn: simulate });
}
