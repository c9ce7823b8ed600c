package io.floe.spark.read.plan.manifest;

import java.util.concurrent.ExecutorService;
import org.apache.iceberg.util.ThreadPools;

/**
 * The threads that read a scan's manifests in parallel on the driver: a pool of Floe's own, the
 * size of Iceberg's worker pool, rather than Iceberg's worker pool itself. A scan may be planned
 * from a thread of Iceberg's worker pool (a catalog call or query made from inside an Iceberg
 * task); planning there with the same pool would wait for threads that are all busy waiting, and
 * never finish. The threads are daemons and the pool lives as long as the JVM.
 */
public final class PlanningPool {
  private PlanningPool() {}

  /** The shared pool, created on first use. */
  public static ExecutorService get() {
    return Holder.POOL;
  }

  private static final class Holder {
    private static final ExecutorService POOL =
        ThreadPools.newExitingWorkerPool("floe-planning", ThreadPools.WORKER_THREAD_POOL_SIZE);
  }
}
