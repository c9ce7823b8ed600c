package jakarta.servlet;

/**
 * The marker interface Servlet 5 had and Servlet 6 removed, declared again for the test classpath
 * only.
 *
 * <p>Why it exists: the REST catalog server (Jetty 12 ee10) and the in-process S3 server (S3Proxy)
 * that tests start inside the test JVM need the Servlet 6 API, and Maven's mediation lets the test
 * dependency on Servlet 6 replace the Servlet 5 that Spark brings. Spark's own Jetty 11 still asks,
 * for every servlet it registers (its metrics servlet, even with the UI off), whether the servlet
 * implements this interface. No class implements it.
 *
 * <p>Why it cannot hide a broken user classpath: what users run ({@code bin/floe-sql}, {@code
 * bin/floe-cluster}, the benchmarks) takes its classpath from {@code launcher/pom.xml}, whose
 * dependency graph has none of the project's test dependencies, and the process tests
 * ({@code io.floe.spark.cli.FloeSqlCommandIT}, {@code FloeClusterCommandIT}) run those commands as
 * child processes and check that their classpath holds no test class and no test-scope jar.
 */
public interface SingleThreadModel {}
