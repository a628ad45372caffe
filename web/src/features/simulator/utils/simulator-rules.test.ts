import { describe, expect, it } from 'vitest';

import type { SimulatorRequest } from '../api/simulate';

import { hasFlags, SIMULATOR_MESSAGES, simulatorProblem } from './simulator-rules';

const cart: SimulatorRequest = {
  weekDay: 2,
  meatAmount: 0,
  fruitsAndVegetablesAmount: 10_000,
  cleaningAmount: 0,
  drinksAmount: 0,
  otherAmount: 0,
  partnerCard: false,
};

describe('the simulator checks', () => {
  it('accepts a weekday with at least one amount', () => {
    expect(simulatorProblem(cart)).toBeNull();
    expect(simulatorProblem({ ...cart, weekDay: 7, otherAmount: 10_000_000 })).toBeNull();
  });

  it('asks for a weekday from 1 to 7', () => {
    for (const weekDay of [0, 8, 1.5, Number.NaN]) {
      expect(simulatorProblem({ ...cart, weekDay })).toEqual({ field: 'weekDay', message: SIMULATOR_MESSAGES.weekDay });
    }
  });

  it('refuses negative, fractional and too large amounts under their field', () => {
    expect(simulatorProblem({ ...cart, meatAmount: -1 })).toEqual({ field: 'meatAmount', message: SIMULATOR_MESSAGES.negative });
    expect(simulatorProblem({ ...cart, drinksAmount: 10.5 })).toEqual({
      field: 'drinksAmount',
      message: SIMULATOR_MESSAGES.notWhole,
    });
    expect(simulatorProblem({ ...cart, cleaningAmount: 10_000_001 })).toEqual({
      field: 'cleaningAmount',
      message: SIMULATOR_MESSAGES.tooLarge,
    });
  });

  it('asks for at least one amount', () => {
    expect(simulatorProblem({ ...cart, fruitsAndVegetablesAmount: 0 })).toEqual({
      field: null,
      message: 'Ingresa al menos un monto.',
    });
  });

  it('sets each has-flag when its amount is above 0', () => {
    expect(hasFlags({ ...cart, meatAmount: 1 })).toEqual({
      hasMeatAmount: true,
      hasFruitsAndVegetablesAmount: true,
      hasCleaningAmount: false,
      hasDrinksAmount: false,
      hasOtherAmount: false,
    });
  });
});
