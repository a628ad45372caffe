/**
 * A purchase's pesos earned, line by line: category, pesos paid, the rule and its rate, pesos
 * earned, and a total row. One component for the simulator's estimate and for a posted
 * purchase's explanation in Mis Movimientos (#21), which the gateway answers with one line schema
 * (`AccrualLine`), so the two can never read differently.
 */
import type { Schemas } from '@/lib/api-types';
import { formatPesos, formatRate } from '@/lib/format';

import './accrual-breakdown.css';

/** One line as the gateway answers it: the simulator and a movement's detail share the schema. */
export type AccrualLineView = Schemas['AccrualLine'];

/** What each category is called; the simulator's fields use the same names. */
export const CATEGORY_LABELS: Readonly<Record<string, string>> = {
  meat: 'Carnes',
  fruits_and_vegetables: 'Frutas y verduras',
  cleaning: 'Limpieza',
  drinks: 'Bebidas',
  other: 'Otros productos',
};

export const BREAKDOWN_COPY = {
  category: 'Categoría',
  amount: 'Monto',
  rule: 'Regla',
  earned: 'Acumulas',
  total: 'Total',
} as const;

export function categoryLabel(category: string): string {
  return CATEGORY_LABELS[category] ?? category;
}

type AccrualBreakdownProps = {
  lines: readonly AccrualLineView[];
  /** Read by screen readers as the table's name. */
  caption: string;
  /** Adds a last row with the sums of the amounts and of the pesos earned. */
  showTotal?: boolean;
  /** The column of pesos earned ("Acumulas", "Acumulaste"). */
  earnedLabel?: string;
};

export function AccrualBreakdown({ lines, caption, showTotal = false, earnedLabel = BREAKDOWN_COPY.earned }: AccrualBreakdownProps) {
  const paid = lines.reduce((sum, line) => sum + line.amount, 0);
  const earned = lines.reduce((sum, line) => sum + line.earned, 0);
  return (
    <table className="accrual-breakdown">
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{BREAKDOWN_COPY.category}</th>
          <th scope="col">{BREAKDOWN_COPY.amount}</th>
          <th scope="col">{BREAKDOWN_COPY.rule}</th>
          <th scope="col">{earnedLabel}</th>
        </tr>
      </thead>
      <tbody>
        {lines.map((line, index) => (
          // A purchase may have two lines of one category: the position tells them apart.
          <tr key={`${line.category}-${index}`}>
            <th scope="row">{categoryLabel(line.category)}</th>
            <td>{formatPesos(line.amount)}</td>
            <td>
              {line.rule} <span className="accrual-breakdown__rate">({formatRate(line.rateBp)})</span>
            </td>
            <td>{formatPesos(line.earned)}</td>
          </tr>
        ))}
      </tbody>
      {showTotal ? (
        <tfoot>
          <tr>
            <th scope="row">{BREAKDOWN_COPY.total}</th>
            <td>{formatPesos(paid)}</td>
            <td />
            <td data-testid="breakdown-total">{formatPesos(earned)}</td>
          </tr>
        </tfoot>
      ) : null}
    </table>
  );
}
