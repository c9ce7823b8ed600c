package io.floe.spark.s3;

import java.net.URI;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.gaul.s3proxy.AccessGrant;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;

/**
 * S3Proxy inside the test JVM, over an in-memory store, bound to 127.0.0.1. Besides its static key
 * pair it accepts temporary key pairs until their expiry ({@link #grant}), as an STS would: the
 * REST catalog server vends those. S3Proxy checks each request's signature against the secret of
 * its access key, so a request signed with an expired or unknown key is denied; it does not check
 * the session token a request carries.
 */
public final class InProcessS3 extends S3Server {
  private final S3Proxy proxy;
  private final Map<String, Grant> temporary = new ConcurrentHashMap<>();
  private final Set<String> usedKeys = ConcurrentHashMap.newKeySet();
  private final AtomicInteger denied = new AtomicInteger();

  private record Grant(String secret, Instant expiresAt) {}

  private InProcessS3(String accessKey, String secretKey, S3Proxy proxy) {
    super(accessKey, secretKey);
    this.proxy = proxy;
  }

  /** Starts S3Proxy on a free loopback port. */
  public static InProcessS3 start(String accessKey, String secretKey) {
    BlobStore store = new TransientNio2BlobStore();
    S3Proxy proxy =
        S3Proxy.builder()
            .blobStore(store)
            .endpoint(URI.create("http://127.0.0.1:0"))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, accessKey, secretKey)
            // requests signed with temporary keys carry x-amz-security-token, which S3Proxy
            // otherwise answers with NotImplemented
            .ignoreUnknownHeaders(true)
            .build();
    InProcessS3 server = new InProcessS3(accessKey, secretKey, proxy);
    proxy.setBlobStoreLocator(
        (identity, container, blob) -> server.locate(identity, store));
    try {
      proxy.start();
    } catch (Exception e) {
      throw new IllegalStateException("Cannot start S3Proxy: " + e.getMessage(), e);
    }
    return server;
  }

  private AccessGrant locate(String identity, BlobStore store) {
    if (accessKey().equals(identity)) {
      usedKeys.add(identity);
      return new AccessGrant(secretKey(), store);
    }
    Grant grant = identity == null ? null : temporary.get(identity);
    if (grant == null || !Instant.now().isBefore(grant.expiresAt())) {
      denied.incrementAndGet();
      return null;
    }
    usedKeys.add(identity);
    return new AccessGrant(grant.secret(), store);
  }

  /** Accepts a temporary key pair until the given instant. */
  public void grant(String accessKey, String secret, Instant expiresAt) {
    temporary.put(accessKey, new Grant(secret, expiresAt));
  }

  /** The access keys that signed at least one accepted request. */
  public Set<String> usedKeys() {
    return Set.copyOf(usedKeys);
  }

  /** Requests denied because their key was unknown or had expired. */
  public int deniedRequests() {
    return denied.get();
  }

  @Override
  public String description() {
    return "S3Proxy in this JVM (no Docker engine)";
  }

  @Override
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + proxy.getPort());
  }

  @Override
  public void close() {
    try {
      proxy.stop();
    } catch (Exception e) {
      throw new IllegalStateException("Cannot stop S3Proxy: " + e.getMessage(), e);
    }
  }
}
