package io.floe.spark.s3;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * An S3-compatible server for tests, reached on loopback with one static key pair: MinIO in a
 * container where a Docker engine runs, S3Proxy inside the test JVM otherwise (see {@link
 * #start}). It carries the endpoint and keys, and builds the catalog options that point Iceberg's
 * S3FileIO at it.
 */
public abstract class S3Server implements AutoCloseable {
  /** The region every test client names; neither server checks it. */
  public static final String REGION = "us-east-1";

  /** System property that forces a server: {@code minio} or {@code s3proxy}. */
  public static final String CHOICE_PROPERTY = "floe.s3.server";

  private final String accessKey;
  private final String secretKey;

  protected S3Server(String accessKey, String secretKey) {
    this.accessKey = accessKey;
    this.secretKey = secretKey;
  }

  /**
   * Starts MinIO through Testcontainers when a Docker engine answers, S3Proxy in this JVM
   * otherwise, or the one the system property {@value #CHOICE_PROPERTY} names; prints the choice.
   */
  public static S3Server start(String accessKey, String secretKey) {
    String forced = System.getProperty(CHOICE_PROPERTY, "");
    boolean minio =
        forced.equalsIgnoreCase("minio") || (forced.isEmpty() && MinioS3.dockerAvailable());
    S3Server server =
        minio ? MinioS3.launch(accessKey, secretKey) : InProcessS3.start(accessKey, secretKey);
    System.out.println("S3 tests run against " + server.description() + " at " + server.endpoint());
    return server;
  }

  /** What runs, for the log line that names the choice. */
  public abstract String description();

  /** The server's address, {@code http://127.0.0.1:<port>}. */
  public abstract URI endpoint();

  public String accessKey() {
    return accessKey;
  }

  public String secretKey() {
    return secretKey;
  }

  /**
   * Catalog options that make Iceberg's S3FileIO talk to this server with the static keys; the
   * keys are left out when {@code withKeys} is false (a REST catalog vends them instead).
   */
  public Map<String, String> fileIoOptions(boolean withKeys) {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    options.put("s3.endpoint", endpoint().toString());
    options.put("s3.path-style-access", "true");
    options.put("client.region", REGION);
    if (withKeys) {
      options.put("s3.access-key-id", accessKey);
      options.put("s3.secret-access-key", secretKey);
    }
    return options;
  }

  /** An S3 client with the static keys, for the tests' own look at the bucket. */
  public S3Client client() {
    return client(accessKey, secretKey);
  }

  /** An S3 client with the given keys. */
  public S3Client client(String key, String secret) {
    return S3Client.builder()
        .endpointOverride(endpoint())
        .region(Region.of(REGION))
        .forcePathStyle(true)
        .httpClient(UrlConnectionHttpClient.create())
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret)))
        .build();
  }

  public void createBucket(String bucket) {
    try (S3Client s3 = client()) {
      s3.createBucket(request -> request.bucket(bucket));
    }
  }

  /** The keys of the objects under a prefix of a bucket, sorted. */
  public List<String> keys(String bucket, String prefix) {
    try (S3Client s3 = client()) {
      return s3.listObjectsV2Paginator(request -> request.bucket(bucket).prefix(prefix)).stream()
          .flatMap(page -> page.contents().stream())
          .map(S3Object::key)
          .sorted()
          .collect(Collectors.toList());
    }
  }

  @Override
  public abstract void close();
}
