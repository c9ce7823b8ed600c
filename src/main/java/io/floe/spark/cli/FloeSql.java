package io.floe.spark.cli;

import io.floe.spark.cli.StatementSplitter.Statement;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * {@code floe-sql}: runs SQL statements on a local Spark session with Floe as catalog {@code floe},
 * the current catalog, over the embedded default warehouse ({@code ./floe-warehouse}) unless told
 * otherwise. Statements come from {@code -e}, from a file ({@code -f}) or from standard input, and
 * run one by one as each {@code ;} is read. Each result is printed as a plain-text table on standard
 * output; see {@link CliArguments#USAGE} for the options.
 *
 * <p>The first failing statement stops the run: one line on standard error says which statement
 * failed and why, and the exit code is 1. A command line that cannot be parsed exits with 2.
 */
public final class FloeSql {
  /** The exit code of a run where every statement succeeded. */
  public static final int SUCCESS = 0;
  /** The exit code of a run stopped by a failing statement. */
  public static final int STATEMENT_FAILED = 1;
  /** The exit code of a command line that cannot be parsed. */
  public static final int USAGE_ERROR = 2;

  private static final String PREFIX = "floe-sql: ";
  private static final String PROMPT = "floe-sql> ";
  private static final String CONTINUATION = "       > ";

  private final SparkSession spark;
  private final PrintStream out;
  private final PrintStream err;
  private final boolean silent;
  private final int maxRows;

  FloeSql(SparkSession spark, PrintStream out, PrintStream err, boolean silent, int maxRows) {
    this.spark = Objects.requireNonNull(spark, "spark is null");
    this.out = Objects.requireNonNull(out, "out is null");
    this.err = Objects.requireNonNull(err, "err is null");
    this.silent = silent;
    this.maxRows = maxRows;
  }

  public static void main(String[] args) {
    System.exit(execute(args, System.in, System.out, System.err));
  }

  /**
   * Runs a script on a session the caller owns, the way {@code floe-sql} does: each statement is
   * echoed, then its result table (or {@code OK}) is printed.
   *
   * @return {@link #SUCCESS}, or {@link #STATEMENT_FAILED} after the first failing statement
   */
  public static int run(SparkSession spark, Reader script, PrintStream out, PrintStream err) {
    return new FloeSql(spark, out, err, false, CliArguments.DEFAULT_MAX_ROWS)
        .run(script, "the script");
  }

  /** The whole command: parses the arguments, starts the session, runs the SQL, stops the session. */
  static int execute(String[] args, InputStream stdin, PrintStream out, PrintStream err) {
    CliArguments arguments;
    Map<String, String> settings;
    try {
      arguments = CliArguments.parse(args);
      settings = SessionSettings.of(arguments, System.getProperties());
    } catch (IllegalArgumentException e) {
      err.println(PREFIX + e.getMessage());
      return USAGE_ERROR;
    }
    if (arguments.help()) {
      out.println(CliArguments.USAGE);
      return SUCCESS;
    }

    String source;
    Reader script;
    if (arguments.sql() != null) {
      source = "the command line";
      script = new StringReader(arguments.sql());
    } else if (arguments.file() != null) {
      source = arguments.file().toString();
      try {
        script = Files.newBufferedReader(arguments.file(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        err.println(PREFIX + "Cannot read " + arguments.file() + ": " + reason(e));
        return STATEMENT_FAILED;
      }
    } else {
      source = "standard input";
      script = new InputStreamReader(stdin, StandardCharsets.UTF_8);
    }

    try {
      boolean quiet;
      SparkSession spark;
      try {
        quiet = QuietLogging.configure();
        SparkSession.Builder builder = SparkSession.builder();
        settings.forEach(builder::config);
        spark = builder.getOrCreate();
      } catch (Exception | LinkageError e) {
        // a class missing from the classpath surfaces as an Error: it still gets the one line
        err.println(PREFIX + "Cannot start the Spark session: " + describe(e));
        return STATEMENT_FAILED;
      }
      if (quiet) {
        spark.sparkContext().setLogLevel("WARN");
      }
      try {
        return new FloeSql(spark, out, err, arguments.silent(), arguments.maxRows()).run(script, source);
      } finally {
        spark.stop();
      }
    } finally {
      closeQuietly(script);
    }
  }

  private static void closeQuietly(Reader script) {
    try {
      script.close();
    } catch (IOException e) {
      // the script was only read: whatever it said has run, and the exit code says how that went
    }
  }

  /** Runs the statements of a script in order, stopping at the first that fails. */
  int run(Reader script, String source) {
    BufferedReader lines =
        script instanceof BufferedReader ? (BufferedReader) script : new BufferedReader(script);
    StatementSplitter splitter = new StatementSplitter();
    int count = 0;
    try {
      String line;
      while ((line = lines.readLine()) != null) {
        for (Statement statement : splitter.addLine(line)) {
          count += 1;
          if (!runStatement(statement, count, source)) {
            return STATEMENT_FAILED;
          }
        }
      }
      for (Statement statement : splitter.finish()) {
        count += 1;
        if (!runStatement(statement, count, source)) {
          return STATEMENT_FAILED;
        }
      }
    } catch (IOException e) {
      err.println(PREFIX + "Cannot read " + source + ": " + reason(e));
      return STATEMENT_FAILED;
    } catch (IllegalArgumentException e) {
      err.println(PREFIX + e.getMessage() + " (in " + source + ")");
      return STATEMENT_FAILED;
    }
    return SUCCESS;
  }

  private boolean runStatement(Statement statement, int number, String source) {
    if (!silent) {
      echo(statement.text());
    }
    try {
      Dataset<Row> result = spark.sql(statement.text());
      ResultTable table = ResultTable.collect(result, maxRows);
      if (table.hasNoColumns()) {
        if (!silent) {
          out.println("OK");
        }
      } else {
        table.lines().forEach(out::println);
      }
      if (!silent) {
        out.println();
      }
      out.flush();
      return true;
    } catch (Exception | LinkageError e) {
      out.flush();
      err.println(
          String.format(
              "%sCannot run statement %d (line %d of %s): %s",
              PREFIX, number, statement.line(), source, describe(e)));
      err.flush();
      return false;
    }
  }

  private void echo(String text) {
    List<String> lines = text.lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      out.println((i == 0 ? PROMPT : CONTINUATION) + lines.get(i) + (i == lines.size() - 1 ? ";" : ""));
    }
  }

  /**
   * A failure in one line: the first line of its message, and the first line of its root cause when
   * the message does not already say it.
   */
  static String describe(Throwable failure) {
    String message = firstLine(failure);
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    if (root != failure) {
      String cause = root.getMessage() == null ? null : firstLine(root);
      if (cause == null) {
        message += " (caused by " + root.getClass().getName() + ")";
      } else if (!message.contains(cause)) {
        message += " (caused by " + root.getClass().getName() + ": " + cause + ")";
      }
    }
    return message;
  }

  /** Why an I/O operation failed, in words. */
  static String reason(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file";
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  private static String firstLine(Throwable failure) {
    String message = failure.getMessage();
    if (message == null || message.isBlank()) {
      return failure.getClass().getName();
    }
    return message.strip().lines().findFirst().orElse("").strip();
  }
}
