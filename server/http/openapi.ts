/**
 * The OpenAPI 3.1 documents of the API (`docs/protocol.md` §3.5), written from the routes the
 * server serves and the schemas they declare (`src/core/schemas`): `GET /api/v1/openapi.json`
 * and the admin API's `GET /admin/api/openapi.json`. A route without its `doc` is still listed
 * (the test of the documents refuses that), so nothing served goes unlisted.
 *
 * Every operation gets the answers the pipeline gives any route (`docs/protocol.md` §4): `401`
 * without a valid key, `403` for a key that may not call it, `400` where it takes a body or a
 * query, `413` and `415` where it takes a body; a schema's `$id` makes it a component.
 */
import type { TSchema } from '@sinclair/typebox';
import { ErrorBody } from '../../src/core/schemas/common.js';
import { FLAGWIRE_VERSION } from '../../src/core/version.js';
import { APPROVAL_WORDS } from './approvals.js';
import type { AnswerDoc } from './operation-doc.js';
import type { Authenticated, MethodSpec, Route } from './router.js';

/** Keywords of the schemas that are not JSON Schema's (`src/core/schemas/common.ts`). */
const OWN_KEYWORDS = new Set(['errorMessage', 'x-ts', 'x-fixed', '$id']);

/** The components gathered while writing a document: each `$id`'d schema once. */
class Components {
  readonly schemas: Record<string, unknown> = {};

  /** `schema` as JSON Schema with every `$id`'d part (and itself, unless `inline`) a `$ref`. */
  ref(schema: TSchema, inline = false): unknown {
    const id = schema.$id as string | undefined;
    if (id && !inline) {
      if (!(id in this.schemas)) {
        this.schemas[id] = {}; // taken, so a schema that refers to itself ends
        this.schemas[id] = this.ref(schema, true);
      }
      return { $ref: `#/components/schemas/${id}` };
    }
    return this.walk(schema);
  }

  private walk(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.walk(v));
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      if (OWN_KEYWORDS.has(key)) continue;
      if (key === 'properties' || key === 'patternProperties' || key === '$defs') {
        out[key] = Object.fromEntries(
          Object.entries(v as Record<string, TSchema>).map(([name, s]) => [name, this.ref(s)]),
        );
      } else if (
        typeof v === 'object' &&
        v !== null &&
        !Array.isArray(v) &&
        (key === 'items' || key === 'additionalProperties' || key === 'not')
      ) {
        out[key] = this.ref(v as TSchema);
      } else if (key === 'anyOf' || key === 'allOf' || key === 'oneOf' || key === 'prefixItems') {
        out[key] = (v as TSchema[]).map((s) => this.ref(s));
      } else {
        out[key] = this.walk(v);
      }
    }
    return out;
  }
}

/** An error answer of an operation: its words (the code first), the error body. */
export const errorAnswer = (description: string): AnswerDoc => ({ description, schema: ErrorBody });

/** A success with a JSON body. */
export const ok = (description: string, schema: TSchema): AnswerDoc => ({ description, schema });

/** The answers every operation may give, whatever it declares (`docs/protocol.md` §4). */
function pipelineAnswers(
  spec: MethodSpec<Authenticated>,
  anonymous: boolean,
  refused: Record<number, AnswerDoc> | undefined,
): Record<number, AnswerDoc> {
  const doc = spec.doc;
  const answers: Record<number, AnswerDoc> = {};
  if (!anonymous && refused) Object.assign(answers, refused);
  else if (!anonymous) {
    answers[401] = errorAnswer('`UNAUTHORIZED`: no key, or not a valid one.');
    answers[403] = errorAnswer(
      spec.readOnly
        ? '`FORBIDDEN`: a client key (it evaluates through OFREP only).'
        : '`FORBIDDEN`: a read-only or client key.',
    );
  }
  if (spec.body || doc?.query) answers[400] = errorAnswer('`VALIDATION_ERROR`: the message names the field.');
  if (spec.body) {
    answers[413] = errorAnswer('`PAYLOAD_TOO_LARGE`: the body is over its limit.');
    answers[415] = errorAnswer('`UNSUPPORTED_MEDIA_TYPE`: the body is not `application/json`.');
  }
  return answers;
}

/** A route's pattern as an OpenAPI path: `flags/:key` is `/flags/{key}`. */
const pathOf = (pattern: string) => `/${pattern.replace(/:([A-Za-z]+)/g, '{$1}')}`.replace(/\/$/, '');

export interface DocumentOptions<G extends Authenticated> {
  title: string;
  description: string;
  /** Where the paths are served from: `/api/v1`, `/admin/api`. */
  server: string;
  routes: readonly Route<G>[];
  /** How a caller authenticates: an API key; the admin token or the session cookie (any one of them). */
  security: SecurityDoc | readonly SecurityDoc[];
  /** The answers to a caller not let through (`401`, `403`), by method; unless given, the API keys'. */
  refusals?: (method: string, spec: MethodSpec<G>) => Record<number, AnswerDoc>;
}

/** A way to authenticate: its name in the document and its OpenAPI security scheme. */
export interface SecurityDoc {
  name: string;
  scheme: Record<string, unknown>;
}

/** The OpenAPI 3.1 document of `routes`. */
export function openApiDocument<G extends Authenticated>(
  options: DocumentOptions<G>,
): Record<string, unknown> {
  const components = new Components();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of options.routes) {
    const item: Record<string, unknown> = {};
    const params = route.segments.filter((s) => s.startsWith(':')).map((s) => s.slice(1));
    if (params.length)
      item.parameters = params.map((name) => ({
        name,
        in: 'path',
        required: true,
        schema: { type: 'string' },
      }));
    for (const [method, spec] of Object.entries(route.methods)) {
      if (!spec) continue;
      const doc = spec.doc;
      const operation: Record<string, unknown> = {
        operationId: `${method.toLowerCase()}${route.pattern
          .split(/[/.-]/)
          .filter(Boolean)
          .map((part) => (part.startsWith(':') ? `By${cap(part.slice(1))}` : cap(part)))
          .join('')}`,
        summary: doc?.summary ?? `${method} ${route.pattern} (not described)`,
        tags: [route.segments[0] ?? 'api'],
      };
      if (doc?.description) operation.description = doc.description;
      const parameters = [
        ...Object.entries(doc?.query ?? {}).map(([name, q]) => ({
          name,
          in: 'query',
          required: q.required ?? false,
          description: q.description,
          schema: components.ref(q.schema),
        })),
        ...Object.entries(doc?.headers ?? {}).map(([name, description]) => ({
          name,
          in: 'header',
          required: false,
          description,
          schema: { type: 'string' },
        })),
      ];
      if (parameters.length) operation.parameters = parameters;
      if (doc?.body)
        operation.requestBody = {
          required: true,
          content: { 'application/json': { schema: components.ref(doc.body) } },
        };
      const answers = {
        ...pipelineAnswers(
          spec as MethodSpec<Authenticated>,
          route.anonymous,
          options.refusals?.(method, spec),
        ),
        ...doc?.answers,
      };
      if (spec.approval) {
        const refused = answers[403]?.description;
        answers[403] = errorAnswer(refused ? `${refused} ${APPROVAL_WORDS}` : APPROVAL_WORDS);
      }
      operation.responses = Object.fromEntries(
        Object.entries(answers).map(([status, answer]) => [
          status,
          {
            description: answer.description,
            ...(answer.schema && {
              content: {
                [answer.mediaType ?? 'application/json']: { schema: components.ref(answer.schema) },
              },
            }),
          },
        ]),
      );
      if (route.anonymous) operation.security = [];
      item[method.toLowerCase()] = operation;
    }
    paths[pathOf(route.pattern)] = item;
  }
  const schemes = [options.security].flat();
  return {
    openapi: '3.1.0',
    info: { title: options.title, version: FLAGWIRE_VERSION, description: options.description },
    servers: [{ url: options.server }],
    security: schemes.map(({ name }) => ({ [name]: [] })),
    paths,
    components: {
      securitySchemes: Object.fromEntries(schemes.map(({ name, scheme }) => [name, scheme])),
      schemas: components.schemas,
    },
  };
}

const cap = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
