// What the signed-in principal may do, from GET /auth/whoami's grants, so the
// console hides what the server would refuse. The server still decides: this
// only spares the user buttons that answer 403. Pure, unit-tested.

import type { GrantRule as Rule, WhoAmI } from '@indelible/client';

export type { WhoAmI };

export type Right = 'read' | 'write' | 'delete' | 'subscribe' | 'consumers' | 'keys' | 'metrics';

/** A name's category: the part before the first `-` or `/` (docs/SECURITY.md). */
export function categoryOf(name: string): string {
  const cut = name.search(/[-/]/);
  return cut < 0 ? name : name.slice(0, cut);
}

function isAboutEverything(rule: Rule): boolean {
  return !rule.categories?.length && !rule.prefixes?.length;
}

/** Whether a rule covers a stream or consumer group name (groups are matched like streams). */
export function covers(rule: Rule, name: string): boolean {
  if (isAboutEverything(rule)) return true;
  if (rule.categories?.includes(categoryOf(name))) return true;
  return rule.prefixes?.some((prefix) => name.startsWith(prefix)) ?? false;
}

function isUnrestricted(who: WhoAmI): boolean {
  return !who.authentication || who.grants?.admin === true;
}

/** May the principal use `right` on `name`? `$` names are the admin's alone. */
export function may(who: WhoAmI, right: Right, name: string): boolean {
  if (isUnrestricted(who)) return true;
  if (name.startsWith('$')) return false;
  return (who.grants?.rules ?? []).some((rule) => rule.allow.includes(right) && covers(rule, name));
}

/** May the principal use `right` on at least some names (e.g. `write`: show the Append page)? */
export function maySomewhere(who: WhoAmI, right: Right): boolean {
  if (isUnrestricted(who)) return true;
  return (who.grants?.rules ?? []).some((rule) => rule.allow.includes(right));
}

/** Rights such as `metrics` come only from a rule about every stream. */
export function mayEverywhere(who: WhoAmI, right: Right): boolean {
  if (isUnrestricted(who)) return true;
  return (who.grants?.rules ?? []).some((rule) => rule.allow.includes(right) && isAboutEverything(rule));
}
