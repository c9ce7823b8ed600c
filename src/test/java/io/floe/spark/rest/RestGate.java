package io.floe.spark.rest;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.rest.auth.OAuth2Util;
import org.apache.iceberg.rest.credentials.ImmutableCredential;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.ErrorResponseParser;
import org.apache.iceberg.rest.responses.ImmutableLoadCredentialsResponse;
import org.apache.iceberg.rest.responses.LoadCredentialsResponseParser;
import org.apache.iceberg.rest.responses.OAuthTokenResponse;

/**
 * What stands in front of Iceberg's REST catalog servlet in the test server: answers the OAuth2
 * token endpoint, refuses catalog requests without a live bearer token, and answers the table
 * credentials endpoint of the REST spec ({@code GET .../tables/{table}/credentials}) with freshly
 * vended S3 credentials.
 */
final class RestGate implements Filter {
  static final String TOKEN_PATH = "/v1/oauth/tokens";
  private static final Pattern CREDENTIALS_PATH =
      Pattern.compile("/v1/namespaces/([^/]+)/tables/([^/]+)/credentials");

  private final TokenIssuer tokens;
  private final CredentialVendor vendor;
  private final AtomicInteger credentialRequests = new AtomicInteger();

  RestGate(TokenIssuer tokens, CredentialVendor vendor) {
    this.tokens = tokens;
    this.vendor = vendor;
  }

  int credentialRequests() {
    return credentialRequests.get();
  }

  @Override
  public void doFilter(ServletRequest servletRequest, ServletResponse servletResponse, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest request = (HttpServletRequest) servletRequest;
    HttpServletResponse response = (HttpServletResponse) servletResponse;
    String path = request.getRequestURI();
    if ("POST".equals(request.getMethod()) && TOKEN_PATH.equals(path)) {
      answerTokenRequest(request, response);
      return;
    }
    if (!tokens.allows(request.getHeader("Authorization"))) {
      write(
          response,
          401,
          ErrorResponseParser.toJson(
              ErrorResponse.builder()
                  .responseCode(401)
                  .withType("NotAuthorizedException")
                  .withMessage("the bearer token is missing, unknown or expired")
                  .build()));
      return;
    }
    Matcher credentials = CREDENTIALS_PATH.matcher(path);
    if ("GET".equals(request.getMethod()) && credentials.matches() && vendor != null) {
      credentialRequests.incrementAndGet();
      String table = credentials.group(1).replace("%1F", ".") + "." + credentials.group(2);
      write(
          response,
          200,
          LoadCredentialsResponseParser.toJson(
              ImmutableLoadCredentialsResponse.builder()
                  .addCredentials(
                      ImmutableCredential.builder().prefix("s3://").config(vendor.vend(table)).build())
                  .build()));
      return;
    }
    chain.doFilter(request, response);
  }

  private void answerTokenRequest(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    Map<String, String> form = new HashMap<>();
    request.getParameterMap().forEach((key, values) -> form.put(key, values[0]));
    TokenIssuer.Answer answer = tokens.answer(form, request.getHeader("Authorization"));
    if (answer.status() != 200) {
      write(
          response,
          answer.status(),
          "{\"error\":\"" + answer.error() + "\",\"error_description\":\"rejected by the test server\"}");
      return;
    }
    write(
        response,
        200,
        OAuth2Util.tokenResponseToJson(
            OAuthTokenResponse.builder()
                .withToken(answer.token())
                .withTokenType("bearer")
                .withIssuedTokenType("urn:ietf:params:oauth:token-type:access_token")
                .setExpirationInSeconds(answer.expiresInSeconds())
                .build()));
  }

  private static void write(HttpServletResponse response, int status, String json) throws IOException {
    response.setStatus(status);
    response.setContentType("application/json");
    response.getWriter().write(json);
  }
}
