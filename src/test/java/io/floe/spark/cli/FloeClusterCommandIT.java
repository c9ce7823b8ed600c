package io.floe.spark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.cli.UserCommand.Result;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/floe-cluster} as docs/cluster.md shows it, run as child processes: start a Master and
 * two Workers, run a query on them with {@code bin/floe-sql} (executors in their own JVMs), stop.
 */
class FloeClusterCommandIT {
  private static final Duration TIMEOUT = Duration.ofMinutes(5);

  @Test
  void startQueryAndStop(@TempDir Path dir) throws Exception {
    Map<String, String> ports =
        Map.of(
            "FLOE_MASTER_PORT", String.valueOf(freePort()),
            "FLOE_MASTER_UI_PORT", String.valueOf(freePort()));
    String cluster = UserCommand.script("floe-cluster").toString();
    Result start = UserCommand.run(dir, "", ports, TIMEOUT, cluster, "start");
    try {
      assertThat(start.exitCode()).as(start.toString()).isZero();
      Matcher hint =
          Pattern.compile("run a driver with --master (\\S+) --conf spark\\.jars=(\\S+)").matcher(start.stdout());
      assertThat(hint.find()).as(start.toString()).isTrue();
      assertThat(hint.group(1)).isEqualTo("spark://127.0.0.1:" + ports.get("FLOE_MASTER_PORT"));
      assertThat(Path.of(hint.group(2))).isRegularFile();

      Result query =
          UserCommand.run(
              dir,
              "",
              Map.of(),
              TIMEOUT,
              UserCommand.script("floe-sql").toString(),
              "--master", hint.group(1),
              "--conf", "spark.jars=" + hint.group(2),
              "--conf", "spark.serializer=org.apache.spark.serializer.KryoSerializer",
              "--conf", "spark.kryo.registrator=io.floe.spark.FloeKryoRegistrator",
              "--conf", "spark.kryo.registrationRequired=true",
              "--warehouse", dir.resolve("wh").toString(),
              "-s",
              "-e",
              "CREATE NAMESPACE db; CREATE TABLE db.t (id BIGINT) USING iceberg;"
                  + " INSERT INTO db.t SELECT id FROM range(1000);"
                  + " SELECT count(*) AS n, sum(id) AS s FROM db.t");
      assertThat(query.exitCode()).as(query.toString()).isZero();
      assertThat(query.stdout()).as(query.toString()).containsPattern("(?m)^\\s*1000 \\| 499500\\s*$");
      // the work ran in executor JVMs the Workers started, each with its own folder
      try (var apps = Files.list(UserCommand.buildDir().resolve("spark-home/work-1"))) {
        assertThat(apps.count()).isPositive();
      }
    } finally {
      Result stop = UserCommand.run(dir, "", ports, TIMEOUT, cluster, "stop");
      assertThat(stop.exitCode()).as(stop.toString()).isZero();
      assertThat(stop.stdout()).contains("stopped master", "stopped worker-1", "stopped worker-2");
    }
    Result status = UserCommand.run(dir, "", ports, TIMEOUT, cluster, "status");
    assertThat(status.stdout()).contains("not running");
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
