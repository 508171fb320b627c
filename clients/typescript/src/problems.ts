import type { Problem, ProblemSlug, Schemas } from "./types.js";

/** The problem document of an error answer (RFC 9457), with any extra members. */
export type ProblemDocument = Omit<Partial<Problem>, "type" | "title" | "status"> & {
  type: string;
  title: string;
  status: number;
  [member: string]: unknown;
};

type Pascal<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Capitalize<Head>}${Pascal<Tail>}`
  : Capitalize<S>;

/** The members a problem of slug `S` always carries, as the contract declares them
 * (`VersionMismatchProblemMembers`...: `current_version` on a `version-mismatch`). */
export type ProblemMembers<S extends string> = S extends string
  ? `${Pascal<S>}ProblemMembers` extends keyof Schemas
    ? Schemas[`${Pascal<S>}ProblemMembers`]
    : unknown
  : never;

/** The problem document of a problem of slug `S`. */
export type ProblemOf<S extends string> = ProblemDocument & ProblemMembers<S>;

/**
 * An error answer of the service, typed by its slug. Branch on `slug` (never on `title`
 * or `detail`, which are for people): `if (isProblem(err, "version-mismatch")) ...`.
 */
export class ProblemError<S extends string = ProblemSlug | (string & {})> extends Error {
  override readonly name = "ProblemError";
  readonly slug: S;
  readonly status: number;
  readonly problem: ProblemOf<S>;
  /** The `X-Request-ID` of the answer: quote it when you report a problem. */
  readonly requestId: string | null;
  /** `Retry-After` in milliseconds, on a 429 or 503. */
  readonly retryAfterMs: number | null;

  constructor(
    problem: ProblemDocument,
    options: { requestId?: string | null; retryAfterMs?: number | null } = {},
  ) {
    super(`${problem.status} ${problem.title}${problem.detail ? `: ${problem.detail}` : ""}`);
    this.problem = problem as ProblemOf<S>;
    this.slug = slugOf(problem.type) as S;
    this.status = problem.status;
    this.requestId = options.requestId ?? null;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
}

/** `/problems/version-mismatch` -> `version-mismatch`; `about:blank` stays itself. */
export function slugOf(type: string): string {
  const cut = type.replace(/\/+$/, "");
  return cut.slice(cut.lastIndexOf("/") + 1);
}

/** True when `error` is a ProblemError, of the given slug(s) when any are named. */
export function isProblem<S extends ProblemSlug>(
  error: unknown,
  ...slugs: S[]
): error is ProblemError<S> {
  if (!(error instanceof ProblemError)) return false;
  return slugs.length === 0 || (slugs as string[]).includes(error.slug);
}

/** Builds a problem from an answer whose body is not a problem document (a proxy's page). */
export function problemFromStatus(status: number, statusText: string): ProblemDocument {
  return { type: "about:blank", title: statusText || `HTTP ${status}`, status };
}

/** Reads a body that claims to be a problem; falls back to the status when it is not. */
export function asProblem(body: unknown, status: number, statusText: string): ProblemDocument {
  if (
    body !== null &&
    typeof body === "object" &&
    typeof (body as { type?: unknown }).type === "string" &&
    typeof (body as { title?: unknown }).title === "string"
  ) {
    const doc = body as ProblemDocument;
    return typeof doc.status === "number" ? doc : { ...doc, status };
  }
  return problemFromStatus(status, statusText);
}
