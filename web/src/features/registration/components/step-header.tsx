/**
 * The top of each registration step: where the member is ("Paso 2 de 3") and the step's heading,
 * which takes focus when the step was reached from another one so screen readers announce it.
 */
import { useEffect, useRef } from 'react';

import '@/styles/login-card.css';
import './step-header.css';

export const STEP_TITLES = {
  1: 'Paso 1 de 3: tu documento',
  2: 'Paso 2 de 3: tus datos',
  3: 'Paso 3 de 3: tu contraseña',
} as const;

const STEP_NAMES = ['Documento', 'Datos personales', 'Contraseña'] as const;

type StepHeaderProps = {
  step: 1 | 2 | 3;
  titleId: string;
  focusHeading: boolean;
};

export function StepHeader({ step, titleId, focusHeading }: StepHeaderProps) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focusHeading) headingRef.current?.focus();
    // Only when the step appears.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return (
    <>
      <ol className="steps" aria-label="Pasos del registro">
        {STEP_NAMES.map((name, index) => {
          const number = index + 1;
          const state = number < step ? 'done' : number === step ? 'current' : 'next';
          return (
            <li key={name} className={`steps__item steps__item--${state}`} aria-current={state === 'current' ? 'step' : undefined}>
              <span className="steps__number" aria-hidden="true">
                {number}
              </span>
              <span className="steps__name">{name}</span>
            </li>
          );
        })}
      </ol>
      <h2 className="login-step__title" id={titleId} ref={headingRef} tabIndex={-1}>
        {STEP_TITLES[step]}
      </h2>
    </>
  );
}

/** Focus on `heading` once shown, when it was reached from another step. */
export function useHeadingFocus(heading: React.RefObject<HTMLElement | null>, enabled: boolean) {
  useEffect(() => {
    if (enabled) heading.current?.focus();
    // Only when the view appears.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
}
