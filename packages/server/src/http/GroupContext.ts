import { HttpApiBuilder } from "@effect/platform"
import { Context, Effect, Layer } from "effect"

type IdentifierOf<Tag> = Tag extends Context.Tag<infer Id, any> ? Id : never
type Identifiers<Tags extends ReadonlyArray<Context.Tag<any, any>>> = IdentifierOf<Tags[number]>

/** Nothing when the tags cover the group's requirements; else a required argument whose type names what they leave out. */
type Uncovered<R, Tags extends ReadonlyArray<Context.Tag<any, any>>> =
  [Exclude<R, Identifiers<Tags>>] extends [never] ? [] : [missing: Exclude<R, Identifiers<Tags>>]

/**
 * A handler group built in a context holding only the services it names (and the API's router), which must
 * cover what it requires. HttpApiBuilder merges a group's build context into each of its requests, and every
 * service a request provides copies that again: built in the whole app's context, each copy was 82 entries
 * (docs/decisions.md, "The HTTP server's context").
 */
export const groupWith = <A, E, R, const Tags extends ReadonlyArray<Context.Tag<any, any>>>(
  group: Layer.Layer<A, E, R>,
  tags: Tags,
  ..._covered: Uncovered<R, Tags>
): Layer.Layer<A, E, R> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const whole = yield* Effect.context<R>()
      const only = Context.pick(HttpApiBuilder.Router, ...tags)(whole as Context.Context<any>) as Context.Context<R>
      // The app's memo map: the router every group adds its routes to is a memoized layer (Router.Live).
      const memoMap = yield* Layer.CurrentMemoMap
      // mapInputContext replaces the context; Effect.provide would merge the app's into it again.
      return yield* Layer.buildWithMemoMap(group, memoMap, yield* Effect.scope).pipe(Effect.mapInputContext((_: Context.Context<R>) => only))
    })
  )
