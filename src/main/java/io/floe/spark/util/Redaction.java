package io.floe.spark.util;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The one place that decides which option values are secrets. Every {@code toString}, plan
 * description and message that shows options goes through here.
 */
public final class Redaction {
  /** What replaces a secret value. */
  public static final String REDACTED = "*********(redacted)";

  private static final Pattern SECRET_KEY =
      Pattern.compile(
          "(?i).*(secret|password|passwd|token|credential|session|access-key|accesskey|private|auth|"
              + "signature|api-key|apikey).*");

  private Redaction() {}

  /** Whether the value of this option key must never be shown. */
  public static boolean isSecret(String key) {
    return key != null && SECRET_KEY.matcher(key.toLowerCase(Locale.ROOT)).matches();
  }

  /** A sorted copy of the options with every secret value replaced. */
  public static Map<String, String> redact(Map<String, String> options) {
    Map<String, String> shown = new TreeMap<>();
    if (options != null) {
      options.forEach((key, value) -> shown.put(key, isSecret(key) ? REDACTED : value));
    }
    return shown;
  }
}
