package io.floe.spark.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which option values Floe hides wherever it shows options. */
class RedactionTest {
  @Test
  void hidesTheValuesOfEveryCredentialOptionIcebergReads() {
    Map<String, String> shown =
        Redaction.redact(
            Map.of(
                "s3.access-key-id", "AKIA-1",
                "s3.secret-access-key", "secret-1",
                "s3.session-token", "session-1",
                "credential", "client:secret-2",
                "token", "token-1",
                "jdbc.password", "password-1",
                "uri", "http://127.0.0.1:8181",
                "oauth2-server-uri", "http://127.0.0.1:8181/v1/oauth/tokens",
                "s3.endpoint", "http://127.0.0.1:9000"));

    assertThat(shown)
        .containsEntry("s3.access-key-id", Redaction.REDACTED)
        .containsEntry("s3.secret-access-key", Redaction.REDACTED)
        .containsEntry("s3.session-token", Redaction.REDACTED)
        .containsEntry("credential", Redaction.REDACTED)
        .containsEntry("token", Redaction.REDACTED)
        .containsEntry("jdbc.password", Redaction.REDACTED)
        .containsEntry("uri", "http://127.0.0.1:8181")
        .containsEntry("oauth2-server-uri", "http://127.0.0.1:8181/v1/oauth/tokens")
        .containsEntry("s3.endpoint", "http://127.0.0.1:9000");
  }

  @Test
  void hidesPasswordsWrittenIntoUris() {
    assertThat(Redaction.redact("uri", "jdbc:postgresql://db:5432/cat?user=floe&password=pw-1&ssl=true"))
        .isEqualTo("jdbc:postgresql://db:5432/cat?user=floe&password=" + Redaction.REDACTED + "&ssl=true");
    assertThat(Redaction.redact("uri", "https://floe:pw-2@catalog.example.com/api"))
        .isEqualTo("https://floe:" + Redaction.REDACTED + "@catalog.example.com/api");
    assertThat(Redaction.redact("uri", "https://catalog.example.com/api")).isEqualTo("https://catalog.example.com/api");
  }
}
