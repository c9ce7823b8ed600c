/**
 * Idempotent commits: every Floe write commits exactly one snapshot whose summary records the key
 * {@value io.floe.spark.commit.Committer#COMMIT_ID_KEY}, and never commits the same id twice.
 *
 * <p>The id is chosen once per write on the driver (a random UUID), or by the caller with the write
 * option {@code commit-id} ({@code df.write().option("commit-id", ...)}, or the session conf {@code
 * spark.floe.write.commit-id} for SQL). Guarantees:
 *
 * <ul>
 *   <li>Before committing, and again inside every attempt of Iceberg's commit retry loop against the
 *       refreshed table, the target branch's ancestry is searched for the id: since the write's
 *       starting snapshot for a per-write id, the whole retained ancestry for a caller-chosen one. A
 *       found id ends the write successfully without a new snapshot ("skipped": logged at INFO and
 *       counted in the write's {@code commitsSkipped} metric); the files the skipped run wrote are
 *       deleted. Concurrent writers with the same id, in one driver or in several, add one snapshot.
 *   <li>When the catalog cannot say whether a commit landed, no written file is deleted; the table
 *       is refreshed and searched for the id. Found means committed; otherwise the write fails with
 *       {@link io.floe.spark.commit.CommitStateUnknownError}, whose message names the id: rerunning
 *       with that id is safe and adds the data at most once.
 *   <li>Appends, overwrites by filter, dynamic partition overwrites and branch writes (the branch's
 *       own ancestry is searched) all work this way. CREATE/REPLACE TABLE AS SELECT record the id
 *       too; a replaced table starts a new history, so a REPLACE rerun replaces the table again
 *       with the same result.
 *   <li>An id is only found while the snapshot that carries it is retained: once snapshot
 *       expiration removes it from the branch's ancestry, a rerun with the same id commits again.
 * </ul>
 */
package io.floe.spark.commit;
