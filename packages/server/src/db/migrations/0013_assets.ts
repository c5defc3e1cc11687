import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Governed assets: one row per asset with its draft inline (edited under lock_version), immutable revisions,
 * reviews with their decisions, immutable releases with their availability history, role assignments with
 * validity windows, per-space release policies, and what consumers did with releases (acknowledgements,
 * pack journeys and progress). Assets carry the access columns the evaluator's SQL predicate reads
 * (knowledge_space_id, classification_rank, acl_keys: always NULL, assets come with no source ACL).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE assets (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      knowledge_space_id uuid NOT NULL REFERENCES knowledge_spaces(id) ON DELETE CASCADE,
      type text NOT NULL,
      namespace text NOT NULL,
      slug text NOT NULL,
      portfolio_state text NOT NULL DEFAULT 'DRAFT_ONLY',
      sharing_state text NOT NULL DEFAULT 'PRIVATE',
      classification_rank smallint NOT NULL,
      acl_keys text[],
      draft_id uuid NOT NULL DEFAULT gen_random_uuid(),
      lock_version integer NOT NULL DEFAULT 1,
      title text NOT NULL,
      summary text NOT NULL,
      classification text NOT NULL,
      schema_version text NOT NULL,
      payload text NOT NULL,
      edited_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      forked_from_release_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE UNIQUE INDEX assets_namespace_slug_key ON assets (organization_id, namespace, slug)`
  yield* sql`CREATE INDEX assets_space_idx ON assets (knowledge_space_id)`
  yield* sql`
    CREATE TABLE asset_revisions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      asset_id uuid NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      sequence integer NOT NULL,
      title text NOT NULL,
      summary text NOT NULL,
      classification text NOT NULL,
      schema_version text NOT NULL,
      payload text NOT NULL,
      digest text NOT NULL,
      change_note text NOT NULL,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (asset_id, sequence)
    )`
  yield* sql`
    CREATE TABLE asset_reviews (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      asset_id uuid NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      revision_id uuid NOT NULL REFERENCES asset_revisions(id) ON DELETE CASCADE,
      revision_digest text NOT NULL,
      state text NOT NULL,
      policy_version text NOT NULL,
      required_approvals integer NOT NULL,
      requested_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      resolved_at timestamptz
    )`
  // At most one open review per asset: concurrent submissions cannot both open one.
  yield* sql`CREATE UNIQUE INDEX asset_reviews_one_open ON asset_reviews (asset_id) WHERE state = 'IN_REVIEW'`
  yield* sql`
    CREATE TABLE asset_review_decisions (
      review_id uuid NOT NULL REFERENCES asset_reviews(id) ON DELETE CASCADE,
      reviewer_user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      decision text NOT NULL,
      comment text NOT NULL,
      decided_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (review_id, reviewer_user_id)
    )`
  yield* sql`
    CREATE TABLE asset_releases (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      asset_id uuid NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      revision_id uuid NOT NULL REFERENCES asset_revisions(id),
      sequence integer NOT NULL,
      version_label text NOT NULL,
      publication_mode text NOT NULL,
      title text NOT NULL,
      summary text NOT NULL,
      classification text NOT NULL,
      classification_rank smallint NOT NULL,
      schema_version text NOT NULL,
      payload text NOT NULL,
      digest text NOT NULL,
      availability text NOT NULL DEFAULT 'AVAILABLE',
      released_by uuid REFERENCES users(id) ON DELETE SET NULL,
      released_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (asset_id, sequence),
      UNIQUE (asset_id, version_label),
      UNIQUE (revision_id)
    )`
  yield* sql`
    CREATE TABLE asset_availability_changes (
      id bigserial PRIMARY KEY,
      release_id uuid NOT NULL REFERENCES asset_releases(id) ON DELETE CASCADE,
      availability text NOT NULL,
      reason text NOT NULL,
      changed_by uuid REFERENCES users(id) ON DELETE SET NULL,
      effective_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE asset_role_assignments (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      asset_id uuid NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      principal_type text NOT NULL,
      principal_id text NOT NULL,
      role text NOT NULL,
      valid_from timestamptz NOT NULL DEFAULT now(),
      valid_until timestamptz,
      assigned_by uuid REFERENCES users(id) ON DELETE SET NULL,
      projected_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX asset_role_assignments_asset_idx ON asset_role_assignments (asset_id)`
  yield* sql`CREATE INDEX asset_role_assignments_principal_idx ON asset_role_assignments (principal_id)`
  yield* sql`
    CREATE TABLE asset_policies (
      knowledge_space_id uuid PRIMARY KEY REFERENCES knowledge_spaces(id) ON DELETE CASCADE,
      required_approvals integer NOT NULL,
      direct_release_allowed boolean NOT NULL,
      version integer NOT NULL,
      updated_by uuid REFERENCES users(id) ON DELETE SET NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE asset_acknowledgements (
      release_id uuid NOT NULL REFERENCES asset_releases(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      acknowledged_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (release_id, user_id)
    )`
  yield* sql`
    CREATE TABLE asset_pack_journeys (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      release_id uuid NOT NULL REFERENCES asset_releases(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      started_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz,
      UNIQUE (release_id, user_id)
    )`
  yield* sql`
    CREATE TABLE asset_pack_progress (
      journey_id uuid NOT NULL REFERENCES asset_pack_journeys(id) ON DELETE CASCADE,
      item_key text NOT NULL,
      completed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (journey_id, item_key)
    )`
  yield* sql`
    CREATE TABLE asset_prompt_runs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      release_id uuid NOT NULL REFERENCES asset_releases(id) ON DELETE CASCADE,
      user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      trace_id uuid NOT NULL,
      input_shape_digest text NOT NULL,
      gateway_id text NOT NULL,
      model_id text NOT NULL,
      duration_millis integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
})
