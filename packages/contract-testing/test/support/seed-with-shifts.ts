// Seeds with a chosen number of employees and shifts: the seed's first of each copied, each copy
// with a GUID and an external id of its own, none archived or deleted, spread over the seed's
// restaurants. The seeds the thin-evidence tests need: few records to change, or enough for a
// live target, whose run uses up the shifts it deletes.

type SeedJson = Record<string, unknown>;

/** `count` copies of `model`, each in the next restaurant, its GUID numbered under `prefix`. */
function copies(
  model: SeedJson,
  count: number,
  restaurants: readonly string[],
  prefix: string,
  externalId: string,
) {
  const { deleted: _d, deletedDate: _dd, modifiedDate: _m, ...rest } = model;
  return Array.from({ length: count }, (_, i) => ({
    ...rest,
    restaurantGuid: restaurants[i % restaurants.length],
    guid: `${prefix}-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
    externalId: `${externalId}${i + 1}`,
  }));
}

/**
 * `seedJson` with its shifts (and, when `employees` is given, its employees) replaced by copies
 * of its first one, none deleted (archived).
 */
export function seedWithShifts(seedJson: SeedJson, shifts: number, employees?: number): SeedJson {
  const first = (key: string) => ((seedJson[key] as readonly SeedJson[])[0] ?? {}) as SeedJson;
  const restaurants = (seedJson.restaurants as readonly { readonly guid: string }[]).map(
    (r) => r.guid,
  );
  return {
    ...seedJson,
    shifts: copies(first('shifts'), shifts, restaurants, 'd0000000', 'SCHEDULER:shift-'),
    ...(employees === undefined
      ? {}
      : { employees: copies(first('employees'), employees, restaurants, 'e0000000', 'PAYROLL:9') }),
  };
}
