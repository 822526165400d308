/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.ArchConfiguration;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.opensearch.test.OpenSearchTestCase;

/**
 * The package order drawn in docs/architecture.md, checked on the compiled main classes: each
 * package uses only the packages below it, so no change can bring a cycle back unnoticed.
 */
public class PackageLayersTests extends OpenSearchTestCase {

    /** Bottom up; a package may use any package before it in this list, none after it. */
    static final List<String> ORDER = List.of(
            "core",
            "compat",
            "index",
            "ingest",
            "query",
            "match",
            "lookup",
            "clusters",
            "collapse",
            "compare",
            "stats",
            "plugin");

    private static JavaClasses classes;

    /**
     * The main classes, imported once, from where the plugin class was loaded: ArchUnit's own test filter knows
     * test classes by a path ({@code target/test-classes}) that a build with another {@code build.dir} does not
     * have. Classes outside the project are not followed (they are in no layer).
     */
    private static synchronized JavaClasses mainClasses() {
        if (classes == null) {
            String pluginClass = NearDupPlugin.class.getSimpleName() + ".class";
            String url = String.valueOf(NearDupPlugin.class.getResource(pluginClass));
            String mainRoot = url.substring(0, url.length() - ("io/neardup/" + pluginClass).length());
            ArchConfiguration.get().setResolveMissingDependenciesFromClassPath(false);
            classes = new ClassFileImporter()
                    .withImportOption(location -> location.asURI().toString().startsWith(mainRoot))
                    .importPackages("io.neardup");
        }
        return classes;
    }

    private static String packageOf(String layer) {
        return layer.equals("plugin") ? "io.neardup" : "io.neardup." + layer + "..";
    }

    public void testEachPackageUsesOnlyThePackagesBelowIt() {
        JavaClasses classes = mainClasses();
        assertTrue("no classes imported: the check would pass vacuously", classes.size() > 100);
        LayeredArchitecture layers = layeredArchitecture().consideringOnlyDependenciesInLayers();
        for (String layer : ORDER) {
            layers = layers.layer(layer).definedBy(packageOf(layer));
        }
        for (int i = 0; i < ORDER.size(); i++) {
            String[] below = ORDER.subList(0, i).toArray(String[]::new);
            layers = below.length == 0
                    ? layers.whereLayer(ORDER.get(i)).mayNotAccessAnyLayer()
                    : layers.whereLayer(ORDER.get(i)).mayOnlyAccessLayers(below);
        }
        layers.check(classes);
    }

    public void testPackagesFormNoCycle() {
        slices().matching("io.neardup.(*)..").should().beFreeOfCycles().check(mainClasses());
    }

    public void testCoreIsPureJava() {
        noClasses()
                .that()
                .resideInAPackage("io.neardup.core..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.opensearch..", "org.apache.lucene..")
                .check(mainClasses());
    }

    /** The calls that make a thread wait for another action's answer (or any future's, or a latch). */
    private static boolean waitsOnAnAnswer(JavaMethodCall call) {
        String owner = call.getTargetOwner().getName();
        String name = call.getName();
        return name.equals("actionGet")
                || (name.equals("get")
                        && Set.of(
                                        "org.opensearch.common.action.ActionFuture",
                                        "org.opensearch.action.support.PlainActionFuture",
                                        "org.opensearch.common.util.concurrent.BaseFuture",
                                        "java.util.concurrent.Future",
                                        "java.util.concurrent.CompletableFuture")
                                .contains(owner))
                || (name.equals("await") && owner.equals("java.util.concurrent.CountDownLatch"));
    }

    /**
     * The query path ({@code query}, and the field types' queries in {@code index}) waits on no action's answer: the
     * liked document and a named pipeline are read by the rewrite's async actions. The one wait left is
     * {@code LikeResolver.readOnTheShard}, {@code like._id} without {@code _index} where no coordinating rewrite can
     * read it (OpenSearch 3.0.x, an alias filter, a percolator query).
     */
    public void testTheQueryPathWaitsOnNoAnswer() {
        Set<String> waiting = new TreeSet<>();
        int calls = 0;
        for (JavaClass javaClass : mainClasses()) {
            String pkg = javaClass.getPackageName();
            if (pkg.equals("io.neardup.query") == false && pkg.equals("io.neardup.index") == false) {
                continue;
            }
            for (JavaMethodCall call : javaClass.getMethodCallsFromSelf()) {
                calls++;
                if (waitsOnAnAnswer(call)) {
                    waiting.add(call.getOrigin().getFullName() + " -> "
                            + call.getTarget().getFullName());
                }
            }
        }
        assertTrue("no calls read: the check would pass vacuously", calls > 1000);
        assertEquals(
                Set.of("io.neardup.query.LikeResolver.readOnTheShard(io.neardup.query.Like$ById, java.lang.String, "
                        + "org.opensearch.index.query.QueryShardContext) -> "
                        + "org.opensearch.common.action.ActionFuture.actionGet()"),
                waiting);
    }
}
