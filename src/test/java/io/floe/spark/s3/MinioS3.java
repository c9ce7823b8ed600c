package io.floe.spark.s3;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.MinIOContainer;

/** MinIO in a Docker container started through Testcontainers, for machines with a Docker engine. */
final class MinioS3 extends S3Server {
  static final String IMAGE = "minio/minio:RELEASE.2023-09-04T19-57-37Z";

  private final MinIOContainer container;

  private MinioS3(String accessKey, String secretKey, MinIOContainer container) {
    super(accessKey, secretKey);
    this.container = container;
  }

  /**
   * Whether a Docker engine answers. Testcontainers is asked only when something points at one (a
   * socket, DOCKER_HOST, a Testcontainers configuration), which keeps its failed probe out of the
   * output on machines without Docker.
   */
  static boolean dockerAvailable() {
    Path home = Paths.get(System.getProperty("user.home"));
    boolean pointed =
        System.getenv("DOCKER_HOST") != null
            || Files.exists(Paths.get("/var/run/docker.sock"))
            || Files.exists(home.resolve(".docker").resolve("run").resolve("docker.sock"))
            || Files.exists(home.resolve(".testcontainers.properties"));
    if (!pointed) {
      return false;
    }
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  static MinioS3 launch(String accessKey, String secretKey) {
    MinIOContainer container =
        new MinIOContainer(IMAGE).withUserName(accessKey).withPassword(secretKey);
    container.start();
    return new MinioS3(accessKey, secretKey, container);
  }

  @Override
  public String description() {
    return "MinIO " + IMAGE + " through Testcontainers";
  }

  @Override
  public URI endpoint() {
    return URI.create(container.getS3URL());
  }

  @Override
  public void close() {
    container.stop();
  }
}
