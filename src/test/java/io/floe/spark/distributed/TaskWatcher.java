package io.floe.spark.distributed;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.ExecutorLostFailure;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.scheduler.TaskInfo;

/** Follows the driver's task events: which tasks run where, and how many were lost with their executor. */
final class TaskWatcher extends SparkListener {
  private final Map<Long, TaskInfo> running = new ConcurrentHashMap<>();
  private final AtomicInteger lostWithExecutor = new AtomicInteger();
  private final AtomicInteger succeeded = new AtomicInteger();

  @Override
  public void onTaskStart(SparkListenerTaskStart event) {
    running.put(event.taskInfo().taskId(), event.taskInfo());
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd event) {
    running.remove(event.taskInfo().taskId());
    if (event.reason() instanceof ExecutorLostFailure) {
      lostWithExecutor.incrementAndGet();
    } else if (event.taskInfo().successful()) {
      succeeded.incrementAndGet();
    }
  }

  /** An executor that has been running one task for at least {@code age}, if any. */
  Optional<String> executorRunningTaskFor(Duration age) {
    long now = System.currentTimeMillis();
    return running.values().stream()
        .filter(task -> now - task.launchTime() >= age.toMillis())
        .map(TaskInfo::executorId)
        .findFirst();
  }

  int lostWithExecutor() {
    return lostWithExecutor.get();
  }

  int succeeded() {
    return succeeded.get();
  }
}
