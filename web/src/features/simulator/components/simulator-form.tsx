import { useState, type FormEvent } from 'react';

import { AccrualBreakdown } from '@/components/accrual-breakdown';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { SelectField } from '@/components/ui/select-field';
import { TextField } from '@/components/ui/text-field';
import { track } from '@/lib/analytics';
import { ApiError } from '@/lib/api-client';
import { WEEK_DAY_NAMES } from '@/lib/dates';
import { formatPesos, parseAmountInput, readAmountInput } from '@/lib/format';

import { useSimulate, type SimulatorRequest, type SimulatorResult } from '../api/simulate';
import { SIMULATOR_COPY as M } from '../messages';
import {
  AMOUNT_FIELDS,
  SIMULATOR_MESSAGES,
  simulatorProblem,
  type SimulatorProblem,
  type AmountField,
  type SimulatorField,
} from '../utils/simulator-rules';

import '@/components/ui/field.css';
import './simulator-form.css';

export const SIMULATOR_FAILED = M.failed;

const EMPTY_AMOUNTS: Record<AmountField, string> = {
  meatAmount: '',
  fruitsAndVegetablesAmount: '',
  cleaningAmount: '',
  drinksAmount: '',
  otherAmount: '',
};

const KNOWN_FIELDS = new Set<string>(['weekDay', ...AMOUNT_FIELDS.map(({ field }) => field)]);

function Result({ result }: { result: SimulatorResult }) {
  const lines = result.lines.filter((line) => line.amount > 0);
  return (
    <div className="simulator__result">
      <p className="simulator__total" data-testid="simulator-total">
        {M.wouldEarn} <strong>{formatPesos(result.totalEarned)}</strong>
      </p>
      {lines.length > 0 ? <AccrualBreakdown lines={lines} caption={M.detailCaption} /> : null}
      {result.bankCardDiscount ? (
        <p className="simulator__discount" data-testid="simulator-discount">
          {M.discountLine(formatPesos(result.bankCardDiscount.pesos), result.bankCardDiscount.description)}{' '}
          <span className="simulator__discount-note">{M.discountNote}</span>
        </p>
      ) : null}
      <p className="simulator__note">{M.estimateNote}</p>
    </div>
  );
}

/**
 * "Simulador de acumulación": a weekday and five amounts in pesos (Chilean formats, formatted
 * while typed, a decimal refused with its message), the partner card, and "Calcular". A bank-card
 * discount in the answer is its own line, never added to the pesos earned. Checked here first with the gateway's messages; the
 * gateway's field errors land under their field. No session needed.
 */
export function SimulatorForm() {
  const [weekDay, setWeekDay] = useState('');
  const [amounts, setAmounts] = useState(EMPTY_AMOUNTS);
  const [partnerCard, setPartnerCard] = useState(false);
  const [decimals, setDecimals] = useState<ReadonlySet<AmountField>>(new Set());
  const [errors, setErrors] = useState<Partial<Record<SimulatorField, string>>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const mutation = useSimulate();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const request: SimulatorRequest = {
      weekDay: weekDay ? Number(weekDay) : 0,
      meatAmount: parseAmountInput(amounts.meatAmount),
      fruitsAndVegetablesAmount: parseAmountInput(amounts.fruitsAndVegetablesAmount),
      cleaningAmount: parseAmountInput(amounts.cleaningAmount),
      drinksAmount: parseAmountInput(amounts.drinksAmount),
      otherAmount: parseAmountInput(amounts.otherAmount),
      partnerCard,
    };
    const decimal = AMOUNT_FIELDS.find(({ field }) => decimals.has(field));
    const problem: SimulatorProblem | null = decimal
      ? { field: decimal.field, message: SIMULATOR_MESSAGES.notWhole }
      : simulatorProblem(request);
    mutation.reset();
    if (problem) {
      setErrors(problem.field ? { [problem.field]: problem.message } : {});
      setFormError(problem.field ? null : problem.message);
      return;
    }
    setErrors({});
    setFormError(null);
    track('simulador_calcular', request);
    mutation.mutate(request, {
      onError: (error) => {
        const body = error instanceof ApiError && error.status === 400 ? error.body : null;
        if (body?.field && KNOWN_FIELDS.has(body.field)) setErrors({ [body.field as SimulatorField]: body.message });
        else setFormError(body?.message ?? SIMULATOR_FAILED);
      },
    });
  }

  return (
    <section className="simulator" aria-labelledby="simulator-title">
      <h2 id="simulator-title">{M.title}</h2>
      <p className="simulator__lead">{M.lead}</p>
      <form className="simulator__form" onSubmit={submit} noValidate>
        <SelectField
          label={M.weekDayLabel}
          value={weekDay}
          onChange={(event) => setWeekDay(event.target.value)}
          error={errors.weekDay}
        >
          <option value="">{M.chooseDay}</option>
          {WEEK_DAY_NAMES.map((day, index) => (
            <option key={day} value={index + 1}>
              {day}
            </option>
          ))}
        </SelectField>
        <fieldset className="simulator__amounts">
          <legend>{M.amountsLegend}</legend>
          {AMOUNT_FIELDS.map(({ field, label }) => (
            <TextField
              key={field}
              label={label}
              name={field}
              inputMode="numeric"
              autoComplete="off"
              placeholder="0"
              value={amounts[field] ? `$${amounts[field]}` : ''}
              onChange={(event) => {
                const { text, decimal } = readAmountInput(amounts[field], event.target.value);
                setAmounts((previous) => ({ ...previous, [field]: text }));
                setDecimals((previous) => {
                  const next = new Set(previous);
                  if (decimal) next.add(field);
                  else next.delete(field);
                  return next;
                });
                setErrors((previous) => ({ ...previous, [field]: decimal ? SIMULATOR_MESSAGES.notWhole : undefined }));
              }}
              error={errors[field]}
            />
          ))}
        </fieldset>
        <label className="checkbox">
          <input type="checkbox" checked={partnerCard} onChange={(event) => setPartnerCard(event.target.checked)} />
          <span>{M.payWithCard}</span>
        </label>
        {formError ? <Alert>{formError}</Alert> : null}
        <Button type="submit" isLoading={mutation.isPending}>
          {M.calculate}
        </Button>
      </form>
      <div aria-live="polite">{mutation.data ? <Result result={mutation.data} /> : null}</div>
    </section>
  );
}
