/**
 * The simulator form's checks, the same as the gateway's for POST /api/simulator and with the
 * same messages, so a member sees them before anything is sent.
 */
import type { SimulatorRequest } from '../api/simulate';
import { SIMULATOR_COPY, SIMULATOR_MESSAGES } from '../messages';

export const AMOUNT_FIELDS = [
  { field: 'meatAmount', category: 'meat', label: SIMULATOR_COPY.meat },
  { field: 'fruitsAndVegetablesAmount', category: 'fruits_and_vegetables', label: SIMULATOR_COPY.fruitsAndVegetables },
  { field: 'cleaningAmount', category: 'cleaning', label: SIMULATOR_COPY.cleaning },
  { field: 'drinksAmount', category: 'drinks', label: SIMULATOR_COPY.drinks },
  { field: 'otherAmount', category: 'other', label: SIMULATOR_COPY.other },
] as const;

export type AmountField = (typeof AMOUNT_FIELDS)[number]['field'];
export type SimulatorField = AmountField | 'weekDay';

/** Whole pesos per category, at most (the gateway's bound). */
export const MAX_CATEGORY_AMOUNT = 10_000_000;

export { SIMULATOR_MESSAGES };

/** Each amount with its has-flag (spec section 3): true when above 0. */
export function hasFlags(request: SimulatorRequest): Record<`has${Capitalize<AmountField>}`, boolean> {
  return {
    hasMeatAmount: request.meatAmount > 0,
    hasFruitsAndVegetablesAmount: request.fruitsAndVegetablesAmount > 0,
    hasCleaningAmount: request.cleaningAmount > 0,
    hasDrinksAmount: request.drinksAmount > 0,
    hasOtherAmount: request.otherAmount > 0,
  };
}

export type SimulatorProblem = { field: SimulatorField | null; message: string };

/** The first problem of a request (field order: day, then the amounts), or null. */
export function simulatorProblem(request: SimulatorRequest): SimulatorProblem | null {
  if (!Number.isInteger(request.weekDay) || request.weekDay < 1 || request.weekDay > 7) {
    return { field: 'weekDay', message: SIMULATOR_MESSAGES.weekDay };
  }
  for (const { field } of AMOUNT_FIELDS) {
    const amount = request[field];
    if (!Number.isFinite(amount) || !Number.isInteger(amount)) return { field, message: SIMULATOR_MESSAGES.notWhole };
    if (amount < 0) return { field, message: SIMULATOR_MESSAGES.negative };
    if (amount > MAX_CATEGORY_AMOUNT) return { field, message: SIMULATOR_MESSAGES.tooLarge };
  }
  if (!Object.values(hasFlags(request)).some(Boolean)) return { field: null, message: SIMULATOR_MESSAGES.allZero };
  return null;
}
