package io.floe.spark.rest;

import io.floe.spark.s3.InProcessS3;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Vends short-lived S3 credentials per table, as a REST catalog backed by an STS would: a fresh
 * access key, secret and session token with an expiry, which the in-process S3 server accepts until
 * then. Remembers every value it handed out and which table asked.
 */
public final class CredentialVendor {
  private final InProcessS3 s3;
  private final Duration lifetime;
  private final String valuePrefix;
  private final List<String> secrets = new CopyOnWriteArrayList<>();
  private final List<String> tables = new CopyOnWriteArrayList<>();

  CredentialVendor(InProcessS3 s3, Duration lifetime, String valuePrefix) {
    this.s3 = s3;
    this.lifetime = lifetime;
    this.valuePrefix = valuePrefix;
  }

  /** The S3FileIO properties of a fresh credential for a table. */
  Map<String, String> vend(String table) {
    String id = UUID.randomUUID().toString().replace("-", "");
    String accessKey = valuePrefix + "AK" + id.substring(0, 12);
    String secret = valuePrefix + "SK" + id;
    String sessionToken = valuePrefix + "ST" + UUID.randomUUID();
    Instant expiresAt = Instant.now().plus(lifetime);
    s3.grant(accessKey, secret, expiresAt);
    secrets.add(accessKey);
    secrets.add(secret);
    secrets.add(sessionToken);
    tables.add(table);
    Map<String, String> config = new LinkedHashMap<>();
    config.put("s3.access-key-id", accessKey);
    config.put("s3.secret-access-key", secret);
    config.put("s3.session-token", sessionToken);
    config.put("s3.session-token-expires-at-ms", String.valueOf(expiresAt.toEpochMilli()));
    return config;
  }

  /** How long each credential lives. */
  public Duration lifetime() {
    return lifetime;
  }

  /** Every access key, secret and session token vended so far. */
  public List<String> vendedValues() {
    return List.copyOf(secrets);
  }

  /** The table of each credential vended, in order (one entry per credential). */
  public List<String> vendedFor() {
    return List.copyOf(tables);
  }
}
