package io.floe.spark.packaging;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A standalone Spark cluster on 127.0.0.1: one Master and one Worker, each its own JVM started
 * from a {@link SparkDistribution}; the Worker starts executor JVMs from the same {@code
 * SPARK_HOME}, so executors see Spark's jars and whatever the application ships, nothing else.
 * Ports are picked free, so several builds can run clusters side by side.
 */
final class StandaloneCluster implements AutoCloseable {
  private static final Pattern ALIVE_WORKERS = Pattern.compile("\"aliveworkers\"\\s*:\\s*(\\d+)");

  private final Process master;
  private final Process worker;
  private final String url;

  private StandaloneCluster(Process master, Process worker, String url) {
    this.master = master;
    this.worker = worker;
    this.url = url;
  }

  /** Starts the Master and a Worker with two cores and waits until the Worker has registered. */
  static StandaloneCluster start(SparkDistribution spark, Path dir, Duration timeout)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    int port = freePort();
    int uiPort = freePort();
    String url = "spark://127.0.0.1:" + port;
    List<String> daemonOptions = List.of("-Xmx256m", "-Dspark.master.rest.enabled=false");
    Process master =
        spark.start(
            "org.apache.spark.deploy.master.Master",
            daemonOptions,
            List.of("--host", "127.0.0.1", "--port", String.valueOf(port), "--webui-port",
                String.valueOf(uiPort)),
            dir.resolve("master.log"),
            dir.resolve("master"));
    Process worker = null;
    StandaloneCluster cluster = null;
    try {
      worker =
          spark.start(
              "org.apache.spark.deploy.worker.Worker",
              daemonOptions,
              List.of("--host", "127.0.0.1", "--cores", "2", "--memory", "1g", "--webui-port",
                  String.valueOf(freePort()), "--work-dir", dir.resolve("work").toString(), url),
              dir.resolve("worker.log"),
              dir.resolve("worker"));
      cluster = new StandaloneCluster(master, worker, url);
      cluster.awaitWorker(uiPort, timeout, dir);
      return cluster;
    } catch (IOException | RuntimeException | InterruptedException | Error e) {
      SparkDistribution.stop(worker);
      SparkDistribution.stop(master);
      throw e;
    }
  }

  /** The master URL applications connect to. */
  String url() {
    return url;
  }

  private void awaitWorker(int uiPort, Duration timeout, Path dir) throws InterruptedException, IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!master.isAlive() || !worker.isAlive()) {
        break;
      }
      try (InputStream in = URI.create("http://127.0.0.1:" + uiPort + "/json/").toURL().openStream()) {
        Matcher matcher = ALIVE_WORKERS.matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        if (matcher.find() && Integer.parseInt(matcher.group(1)) >= 1) {
          return;
        }
      } catch (IOException notUpYet) {
        // the Master's web UI is not listening yet
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException(
        "Cannot start a standalone cluster: no Worker registered with " + url + " within " + timeout
            + "\nmaster.log:\n" + SparkDistribution.tail(Files.readString(dir.resolve("master.log")), 30)
            + "\nworker.log:\n" + SparkDistribution.tail(Files.readString(dir.resolve("worker.log")), 30));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() {
    // the Worker stops its executors when it stops
    SparkDistribution.stop(worker);
    SparkDistribution.stop(master);
  }
}
