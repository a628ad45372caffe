/**
 * PUT /api/registration/personal-data: step 2, also sent again after "Volver" from step 3.
 * 200 answers the view at step 3; its 400s and 409s carry the field they belong to.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { BodyOf, ResponseOf } from '@/lib/api-types';

type PersonalDataBody = BodyOf<'/api/registration/personal-data', 'put'>;
type PersonalDataSaved = ResponseOf<'/api/registration/personal-data', 'put'>;

export function savePersonalData(data: PersonalDataBody): Promise<PersonalDataSaved> {
  return api.put<PersonalDataSaved>('/api/registration/personal-data', data);
}

export function getSavePersonalDataMutationOptions() {
  return { mutationKey: ['registration', 'personal-data'] as const, mutationFn: savePersonalData };
}

export function useSavePersonalData() {
  return useMutation(getSavePersonalDataMutationOptions());
}
