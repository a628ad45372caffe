import { describe, expect, it } from 'vitest';

import { MISSION_CATEGORY_NAMES, MISSIONS_COPY } from '../messages';

import { DEFAULT_MISSION_ICON, MISSION_ICONS, missionIcon } from './mission-icons';

const CATEGORY_IDS = Array.from({ length: 57 }, (_, i) => i + 1).filter((id) => id !== 16);

describe('the mission icons', () => {
  it('give every category 1 to 57 except 16 its own pictogram and its own Spanish name', () => {
    const icons = CATEGORY_IDS.map(missionIcon);
    for (const [i, icon] of icons.entries()) {
      expect(icon.Icon, `category ${CATEGORY_IDS[i]}`).not.toBe(DEFAULT_MISSION_ICON.Icon);
      expect(icon.name, `category ${CATEGORY_IDS[i]}`).not.toBe(MISSIONS_COPY.defaultIcon);
      expect(icon.name.trim()).toBe(icon.name);
      expect(icon.name.length).toBeGreaterThan(2);
    }
    expect(new Set(icons.map((icon) => icon.Icon)).size).toBe(56);
    expect(new Set(icons.map((icon) => icon.name)).size).toBe(56);
    expect(new Set(icons.map((icon) => icon.key)).size).toBe(56);
  });

  it('map exactly those ids, names and icons alike', () => {
    expect(Object.keys(MISSION_ICONS).map(Number)).toEqual(CATEGORY_IDS);
    expect(Object.keys(MISSION_CATEGORY_NAMES).map(Number)).toEqual(CATEGORY_IDS);
  });

  it('name the categories the spec gives as it does', () => {
    const spec = { 1: ['mmbb', 'Mundo bebé'], 2: ['oils', 'Aceites'], 10: ['beef', 'Carnes de vacuno'], 34: ['liquors', 'Licores'], 57: ['clothing', 'Vestuario'] };
    for (const [id, [key, name]] of Object.entries(spec)) {
      expect(missionIcon(Number(id))).toMatchObject({ key, name });
    }
  });

  it('use the default mission logo for 16, for ids outside 1-57 and for ids that are not whole numbers', () => {
    for (const id of [16, 0, 58, 99, -1, -57, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER]) {
      expect(missionIcon(id), `category ${id}`).toEqual({ ...DEFAULT_MISSION_ICON, name: 'Misión' });
    }
  });
});
