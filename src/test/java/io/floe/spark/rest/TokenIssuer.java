package io.floe.spark.rest;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The OAuth2 side of the test REST server: issues opaque bearer tokens for the client-credentials
 * grant and renews them through the token-exchange grant (how Iceberg's client refreshes), each
 * valid for a fixed lifetime; checks the bearer token of every catalog request. Counts what it saw,
 * and can be told to reject the next refresh.
 */
public final class TokenIssuer {
  static final String CLIENT_CREDENTIALS = "client_credentials";
  static final String TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";

  private final String clientId;
  private final String clientSecret;
  private final Duration lifetime;
  private final String tokenPrefix;
  private final Map<String, Instant> tokens = new ConcurrentHashMap<>();
  private final Set<String> issued = ConcurrentHashMap.newKeySet();
  private final AtomicInteger clientCredentialGrants = new AtomicInteger();
  private final AtomicInteger refreshes = new AtomicInteger();
  private final AtomicInteger rejectedRefreshes = new AtomicInteger();
  private final AtomicInteger rejectedRequests = new AtomicInteger();
  private final AtomicBoolean failNextRefresh = new AtomicBoolean();

  TokenIssuer(String clientId, String clientSecret, Duration lifetime, String tokenPrefix) {
    this.clientId = clientId;
    this.clientSecret = clientSecret;
    this.lifetime = lifetime;
    this.tokenPrefix = tokenPrefix;
  }

  /** The answer to a token request: an HTTP status and, on success, the token and its lifetime. */
  record Answer(int status, String token, int expiresInSeconds, String error) {}

  /** Answers a POST to the token endpoint. */
  Answer answer(Map<String, String> form, String authorization) {
    String grant = form.getOrDefault("grant_type", "");
    if (CLIENT_CREDENTIALS.equals(grant)) {
      if (!clientId.equals(form.get("client_id")) || !clientSecret.equals(form.get("client_secret"))) {
        return new Answer(401, null, 0, "invalid_client");
      }
      clientCredentialGrants.incrementAndGet();
      return newToken();
    }
    if (TOKEN_EXCHANGE.equals(grant)) {
      refreshes.incrementAndGet();
      if (failNextRefresh.compareAndSet(true, false)) {
        rejectedRefreshes.incrementAndGet();
        return new Answer(401, null, 0, "invalid_grant");
      }
      String subject = form.get("subject_token");
      Instant expiresAt = subject == null ? null : tokens.get(subject);
      boolean live = expiresAt != null && Instant.now().isBefore(expiresAt);
      if (expiresAt == null || (!live && !basicCredentialsMatch(authorization))) {
        return new Answer(401, null, 0, "invalid_grant");
      }
      return newToken();
    }
    return new Answer(400, null, 0, "unsupported_grant_type");
  }

  private Answer newToken() {
    String token = tokenPrefix + UUID.randomUUID();
    tokens.put(token, Instant.now().plus(lifetime));
    issued.add(token);
    return new Answer(200, token, (int) lifetime.toSeconds(), null);
  }

  private boolean basicCredentialsMatch(String authorization) {
    if (authorization == null || !authorization.startsWith("Basic ")) {
      return false;
    }
    String decoded =
        new String(Base64.getDecoder().decode(authorization.substring(6).trim()), StandardCharsets.UTF_8);
    return decoded.equals(clientId + ":" + clientSecret);
  }

  /** Whether a request's Authorization header carries a live token; counts the ones that do not. */
  boolean allows(String authorization) {
    if (authorization != null && authorization.startsWith("Bearer ")) {
      Instant expiresAt = tokens.get(authorization.substring(7).trim());
      if (expiresAt != null && Instant.now().isBefore(expiresAt)) {
        return true;
      }
    }
    rejectedRequests.incrementAndGet();
    return false;
  }

  /** Accepts a token handed out of band (the {@code token} catalog option) until the server stops. */
  public void acceptStaticToken(String token) {
    tokens.put(token, Instant.MAX);
  }

  /** Rejects the next token-exchange (refresh) request. */
  public void failNextRefresh() {
    failNextRefresh.set(true);
  }

  public int clientCredentialGrants() {
    return clientCredentialGrants.get();
  }

  /** Token-exchange requests, the rejected one included. */
  public int refreshes() {
    return refreshes.get();
  }

  public int rejectedRefreshes() {
    return rejectedRefreshes.get();
  }

  /** Catalog requests refused for a missing, unknown or expired token. */
  public int rejectedRequests() {
    return rejectedRequests.get();
  }

  /** Every token issued so far. */
  public Set<String> issuedTokens() {
    return Set.copyOf(issued);
  }
}
