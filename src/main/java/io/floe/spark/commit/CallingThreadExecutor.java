package io.floe.spark.commit;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * An executor that runs each task in the thread that submits it, before {@code submit} returns.
 * Given to an Iceberg update for work that is too small to hand to a pool: Iceberg's task runner
 * sleeps 10 ms between checks of a pool's futures, but finds these done at once.
 */
final class CallingThreadExecutor extends AbstractExecutorService {
  private volatile boolean shutdown;

  @Override
  public void execute(Runnable task) {
    task.run();
  }

  @Override
  public void shutdown() {
    shutdown = true;
  }

  @Override
  public List<Runnable> shutdownNow() {
    shutdown = true;
    return List.of();
  }

  @Override
  public boolean isShutdown() {
    return shutdown;
  }

  @Override
  public boolean isTerminated() {
    return shutdown;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return shutdown;
  }
}
