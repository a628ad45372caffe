/**
 * The top of each registration step: where the member is ("Paso 2 de 3") and the step's heading,
 * which takes focus when the step was reached from another one so screen readers announce it.
 */
import { useFocusOnShow } from '@/lib/focus-on-show';
import { REGISTRATION_COPY as M } from '../messages';

import '@/styles/login-card.css';
import './step-header.css';

export const STEP_TITLES = {
  1: M.step1,
  2: M.step2,
  3: M.step3,
} as const;

const STEP_NAMES = [M.stepDocument, M.stepPersonalData, M.stepPassword] as const;

type StepHeaderProps = {
  step: 1 | 2 | 3;
  titleId: string;
  focusHeading: boolean;
};

export function StepHeader({ step, titleId, focusHeading }: StepHeaderProps) {
  const headingRef = useFocusOnShow<HTMLHeadingElement>(focusHeading);
  return (
    <>
      <ol className="steps" aria-label={M.stepsLabel}>
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
