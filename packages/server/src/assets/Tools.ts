import { Clock, Effect } from "effect"
import { randomUUID } from "node:crypto"
import { Models } from "../ai/Models"
import { classificationRank, clearanceCeiling } from "../domain/Model"
import type { Principal } from "../domain/Principal"
import { KnowledgeSearch } from "../knowledge/Search"
import { Audit } from "../platform/Audit"
import { AssetReader } from "./AssetReader"
import { Assets } from "./Assets"
import { Delivery } from "./Delivery"
import { DeliveryRepo } from "./DeliveryRepo"
import { InvalidVariables, PromptRunFailed, ReleaseNotFound, WrongAssetType } from "./Errors"
import { renderPrompt } from "./Render"
import { AssetFeedbackRepo, type FeedbackSentiment } from "./FeedbackRepo"

/**
 * The assistant's tools over released assets: each answer carries a fresh traceId, which is logged with the
 * tool, asset and release (never with variables). Checks are Delivery's: 404, then type 409, then 410.
 */
export class AssetTools extends Effect.Service<AssetTools>()("lore/AssetTools", {
  effect: Effect.gen(function* () {
    const delivery = yield* Delivery
    const reader = yield* AssetReader
    const assets = yield* Assets
    const repo = yield* DeliveryRepo
    const models = yield* Models
    const search = yield* KnowledgeSearch
    const audit = yield* Audit
    const feedbackRepo = yield* AssetFeedbackRepo

    /** Runs a tool under a new trace id, logged once the tool answered or failed. */
    const traced = <A, E, R>(tool: string, target: Record<string, string>, run: (traceId: string) => Effect.Effect<A, E, R>) => {
      const traceId = randomUUID()
      return run(traceId).pipe(
        Effect.tap(() => Effect.logInfo("asset tool answered")),
        Effect.tapError(() => Effect.logInfo("asset tool refused")),
        Effect.annotateLogs({ traceId, tool, ...target })
      )
    }

    const promptForm = (caller: Principal, assetId: string, releaseId: string) =>
      traced("prompt-form", { assetId, releaseId }, (traceId) =>
        Effect.map(delivery.deliverable(caller, assetId, releaseId, "PROMPT_TEMPLATE"), ({ release, body }) => ({
          traceId,
          release: { assetId, releaseId, releaseDigest: release.digest },
          objective: body.objective,
          audience: body.audience,
          variables: body.variables,
          outputContract: body.outputContract,
          knowledgeRequirements: body.knowledgeRequirements,
          knownLimitations: body.knownLimitations
        })))

    const promptRender = (caller: Principal, assetId: string, releaseId: string, variables: Readonly<Record<string, unknown>>) =>
      traced("prompt-render", { assetId, releaseId }, (traceId) => Effect.map(delivery.render(caller, assetId, releaseId, variables), (result) => ({ traceId, result })))

    /**
     * Renders and runs the prompt on the PROMPT_EXECUTION route (LOCAL when none is set). When the template
     * names knowledge requirements, the caller's own search supplies passages (so only what they may read) and the
     * answer cites them. The run is recorded with its input shape, model and duration, never its variables.
     */
    const promptRun = (caller: Principal, assetId: string, releaseId: string, variables: Readonly<Record<string, unknown>>) =>
      traced("prompt-run", { assetId, releaseId }, (traceId) =>
        Effect.gen(function* () {
          const { release, body } = yield* delivery.deliverable(caller, assetId, releaseId, "PROMPT_TEMPLATE")
          const rendered = renderPrompt(body, release.digest, variables)
          if (!rendered.ok) return yield* new InvalidVariables({ detail: "The variables do not fit the template", errors: [...rendered.errors] })
          // What the prompt is about is searched even when the template names no knowledge requirements: the LOCAL
          // model answers only from passages, and would otherwise say it found nothing (issue 33.7).
          const requirements = body.knowledgeRequirements
          const evidence = (yield* search.search(caller, { q: [rendered.userPrompt, ...requirements].join(" ").slice(0, 1000), limit: 5 })).evidence
          const started = yield* Clock.currentTimeMillis
          const answer = yield* models.generate(caller, "PROMPT_EXECUTION", {
            messages: [
              ...(rendered.systemInstruction.trim() ? [{ role: "system" as const, content: rendered.systemInstruction }] : []),
              { role: "user" as const, content: rendered.userPrompt }
            ]
          }, evidence.map((e) => ({ id: e.citationId, title: e.title, text: e.content }))).pipe(
            Effect.mapError((error) => new PromptRunFailed({ detail: `The model failed: ${error.code}` }))
          )
          const durationMillis = Math.max(0, (yield* Clock.currentTimeMillis) - started)
          yield* repo.recordRun({ releaseId, userId: caller.userId, traceId, inputShapeDigest: rendered.inputShapeDigest, gatewayId: answer.provider.gatewayId, modelId: answer.provider.modelId, durationMillis })
          yield* audit.record(caller, {
            action: "asset.prompt.run",
            resourceType: "asset",
            resourceId: assetId,
            details: { releaseId, runId: traceId, inputShapeDigest: rendered.inputShapeDigest, gatewayId: answer.provider.gatewayId, modelId: answer.provider.modelId }
          })
          const cited = new Set(answer.citations.map((c) => c.passageId))
          return {
            traceId,
            result: {
              runId: traceId,
              assetId,
              releaseId,
              releaseDigest: release.digest,
              modelRoute: { gatewayId: answer.provider.gatewayId, modelId: answer.provider.modelId },
              output: answer.text,
              // A model that cites nothing is credited with the passages only when the template asked for knowledge.
              citations: evidence.filter((e) => cited.has(e.citationId) || (cited.size === 0 && requirements.length > 0)).map((e) => ({
                chunkId: e.citationId,
                knowledgeAssetId: e.knowledgeAssetId,
                sourceRevisionId: e.knowledgeAssetVersionId,
                title: e.title,
                startPage: e.startPage,
                endPage: e.endPage,
                heading: e.heading
              })),
              durationMillis
            }
          }
        }))

    const workInstruction = (caller: Principal, assetId: string, releaseId: string) =>
      traced("work-instruction", { assetId, releaseId }, (traceId) => Effect.map(delivery.workInstruction(caller, assetId, releaseId), (instruction) => ({ traceId, instruction })))

    const pack = (caller: Principal, assetId: string, releaseId: string) =>
      traced("pack", { assetId, releaseId }, (traceId) => Effect.map(delivery.packJourney(caller, assetId, releaseId), (journey) => ({ traceId, journey })))

    const packItem = (caller: Principal, assetId: string, releaseId: string, itemKey: string, completed: boolean) =>
      traced("pack-item", { assetId, releaseId, itemKey }, (traceId) => Effect.map(delivery.packProgress(caller, assetId, releaseId, itemKey, completed), (journey) => ({ traceId, journey })))

    /** A new draft asset owned by the caller, from a released version they may use. */
    const fork = (caller: Principal, assetId: string, releaseId: string, input: { namespace: string; slug: string; knowledgeSpaceId?: string | undefined }) =>
      traced("fork", { assetId, releaseId }, (traceId) =>
        Effect.gen(function* () {
          const { parts } = yield* reader.load(caller, assetId)
          const type = parts.asset.type
          if (type === "SKILL") return yield* new WrongAssetType({ detail: "Skills are forked from their packages" })
          const { release } = yield* delivery.deliverable(caller, assetId, releaseId, type)
          const asset = yield* assets.create(caller, {
            type: parts.asset.type,
            namespace: input.namespace,
            slug: input.slug,
            knowledgeSpaceId: input.knowledgeSpaceId ?? parts.asset.knowledgeSpaceId,
            draft: { title: release.title, summary: release.summary, classification: release.classification, schemaVersion: release.schemaVersion, payload: release.payload }
          }, releaseId)
          return { traceId, asset }
        }))

    /** Released assets the caller may use, best match first: BM25 over title, summary and body, ranked in SQL (DeliveryRepo.recommended). */
    const recommendations = (caller: Principal, query: { q?: string | undefined; type?: string | undefined }) =>
      traced("asset-recommendations", {}, (traceId) =>
        Effect.gen(function* () {
          const visible = yield* reader.predicate(caller)
          const ceiling = classificationRank[clearanceCeiling[caller.clearance]]
          const ranked = yield* repo.recommended(caller.organizationId, visible, query.type, ceiling, query.q ?? "")
          return {
            traceId,
            recommendations: ranked.map((row) => ({
              assetId: row.assetId,
              type: row.type,
              namespace: row.namespace,
              slug: row.slug,
              title: row.title,
              summary: row.summary,
              knowledgeSpaceId: row.knowledgeSpaceId,
              portfolioState: row.portfolioState,
              sharingState: row.sharingState,
              releaseId: row.releaseId,
              versionLabel: row.versionLabel,
              releaseDigest: row.releaseDigest,
              availability: "AVAILABLE" as const,
              releasedAt: row.releasedAt
            }))
          }
        }))

    /**
     * Feedback on a release the caller may see (withdrawn ones included: feedback may explain a withdrawal). Kept
     * for the asset's owners (GET /api/assets/{assetId}/feedback) and in the audit trail as `asset.feedback`.
     */
    const feedback = (caller: Principal, assetId: string, releaseId: string, input: { sentiment: FeedbackSentiment; comment: string }) =>
      traced("feedback", { assetId, releaseId }, (traceId) =>
        Effect.gen(function* () {
          const { parts, clearanceRank } = yield* reader.load(caller, assetId)
          const release = parts.releases.find((r) => r.id === releaseId && classificationRank[r.classification] <= clearanceRank)
          if (!release) return yield* new ReleaseNotFound({ detail: "The asset has no release with this id that you may see" })
          const feedbackId = randomUUID()
          yield* feedbackRepo.insert({ id: feedbackId, organizationId: caller.organizationId, assetId, releaseId, userId: caller.userId, sentiment: input.sentiment, comment: input.comment, traceId })
          yield* audit.record(caller, {
            action: "asset.feedback",
            resourceType: "asset",
            resourceId: assetId,
            details: { feedbackId, releaseId, versionLabel: release.versionLabel, sentiment: input.sentiment, comment: input.comment, traceId }
          })
          return { traceId, feedbackId }
        }))

    return { feedback, promptForm, promptRender, promptRun, workInstruction, pack, packItem, fork, recommendations }
  }),
  dependencies: [Delivery.Default, AssetReader.Default, Assets.Default, DeliveryRepo.Default, KnowledgeSearch.Default, Audit.Default, AssetFeedbackRepo.Default]
}) {}
