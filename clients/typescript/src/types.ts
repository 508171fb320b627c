// Names for the shapes of the API, taken from the generated `schema.d.ts` by operation, so
// that they follow the committed contract whenever it is regenerated.
import type { components, operations } from "./schema.js";

type Content<R> = R extends { content: { "application/json": infer T } } ? T : never;

/** The JSON body an operation answers with on success (its 200 or 201). */
export type Answer<K extends keyof operations> = operations[K]["responses"] extends infer R
  ? R extends { 201: infer C }
    ? Content<C>
    : R extends { 200: infer C }
      ? Content<C>
      : never
  : never;

/** The JSON body an operation takes. */
export type Body<K extends keyof operations> = operations[K] extends {
  requestBody: { content: { "application/json": infer T } };
}
  ? T
  : operations[K] extends { requestBody?: { content: { "application/json": infer T } } }
    ? T
    : never;

/** The query parameters of an operation. */
export type Query<K extends keyof operations> = operations[K]["parameters"] extends {
  query?: infer Q;
}
  ? Exclude<Q, undefined>
  : never;

export type Schemas = components["schemas"];
export type Period = 1 | 2 | 3;

export type GameCreate = Body<"createGame">;
export type GameCreated = Answer<"createGame">;
export type Game = Answer<"getGame">;
export type Report = Answer<"getReport">;
export type EventList = Answer<"listGameEvents">;
export type GameEvent = EventList["events"][number];
export type Problem = Schemas["Problem"];

/** A problem's slug: the last part of its `type`, e.g. `version-mismatch`. */
export type ProblemSlug = Problem["type"] extends `/problems/${infer S}` ? S : never;
