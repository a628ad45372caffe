/**
 * Who the member is and how to reach them, as both step 2 of the registration and Mis Datos ask
 * it: names, mobile, birth date and gender, with the limits of lib/personal-data.ts. The
 * registration requires the mobile, the birth date and the gender; Mis Datos leaves them optional
 * and its labels say so.
 */
import { chileToday } from '@/lib/dates';
import { useGenders } from '@/lib/genders';
import { latestAdultBirthDate, NAME_MAX_LENGTH } from '@/lib/personal-data';

import { SelectField } from './ui/select-field';
import { TextField } from './ui/text-field';

export type PersonalDataValues = {
  name: string;
  lastName: string;
  motherSurname: string;
  phoneNumber: string;
  birthDate: string;
  genderId: number;
};

export type PersonalDataKey = keyof PersonalDataValues;

type PersonalDataFieldsProps = {
  values: PersonalDataValues;
  errors: Partial<Record<PersonalDataKey, string>>;
  onChange: <K extends PersonalDataKey>(key: K, value: PersonalDataValues[K]) => void;
  /** The registration requires the mobile, birth date and gender; Mis Datos does not. */
  contactRequired: boolean;
  /** The inputs' names, where the form names its fields otherwise than these keys. */
  names?: Record<PersonalDataKey, string>;
};

const OPTIONAL = ' (opcional)';

export function PersonalDataFields({ values, errors, onChange, contactRequired, names }: PersonalDataFieldsProps) {
  const genders = useGenders();
  const optional = contactRequired ? '' : OPTIONAL;
  const field = (key: PersonalDataKey) => ({ name: names?.[key] ?? key, error: errors[key] ?? null });

  return (
    <div className="form-grid">
      <TextField
        {...field('name')}
        label="Nombre"
        autoComplete="given-name"
        maxLength={NAME_MAX_LENGTH}
        value={values.name}
        onChange={(event) => onChange('name', event.target.value)}
        required
      />
      <TextField
        {...field('lastName')}
        label="Apellido paterno"
        autoComplete="family-name"
        maxLength={NAME_MAX_LENGTH}
        value={values.lastName}
        onChange={(event) => onChange('lastName', event.target.value)}
        required
      />
      <TextField
        {...field('motherSurname')}
        label={`Apellido materno${OPTIONAL}`}
        maxLength={NAME_MAX_LENGTH}
        value={values.motherSurname}
        onChange={(event) => onChange('motherSurname', event.target.value)}
      />
      <TextField
        {...field('phoneNumber')}
        label={`Celular${optional}`}
        type="tel"
        inputMode="tel"
        autoComplete="tel"
        placeholder="+56 9 1234 5678"
        value={values.phoneNumber}
        onChange={(event) => onChange('phoneNumber', event.target.value)}
        required={contactRequired}
      />
      <TextField
        {...field('birthDate')}
        label={`Fecha de nacimiento${optional}`}
        type="date"
        autoComplete="bday"
        max={latestAdultBirthDate(chileToday())}
        value={values.birthDate}
        onChange={(event) => onChange('birthDate', event.target.value)}
        required={contactRequired}
      />
      <SelectField
        {...field('genderId')}
        label={`Género${optional}`}
        value={String(values.genderId)}
        onChange={(event) => onChange('genderId', Number(event.target.value))}
        required={contactRequired}
      >
        <option value="0">{contactRequired ? 'Selecciona una opción' : 'Sin especificar'}</option>
        {genders.map((gender) => (
          <option key={gender.id} value={String(gender.id)}>
            {gender.label}
          </option>
        ))}
      </SelectField>
    </div>
  );
}
