package io.neardup;

import org.opensearch.action.admin.cluster.node.info.NodeInfo;
import org.opensearch.action.admin.cluster.node.info.NodesInfoRequest;
import org.opensearch.action.admin.cluster.node.info.PluginsAndModules;
import org.opensearch.plugins.Plugin;
import org.opensearch.plugins.PluginInfo;
import org.opensearch.test.OpenSearchIntegTestCase;
import org.opensearch.test.OpenSearchIntegTestCase.ClusterScope;
import org.opensearch.test.OpenSearchIntegTestCase.Scope;

import java.util.Collection;
import java.util.List;

@ClusterScope(scope = Scope.SUITE, numDataNodes = 2)
public class NearDupPluginClusterTests extends OpenSearchIntegTestCase {

    @Override
    protected Collection<Class<? extends Plugin>> nodePlugins() {
        return List.of(NearDupPlugin.class);
    }

    public void testEveryDataNodeLoadsThePlugin() {
        List<NodeInfo> nodes = client().admin().cluster().prepareNodesInfo().clear().addMetric(NodesInfoRequest.Metric.PLUGINS.metricName()).get().getNodes();
        long dataNodes = nodes.stream().filter(n -> n.getNode().isDataNode()).count();
        assertTrue("expected at least 2 data nodes, got " + dataNodes, dataNodes >= 2);
        for (NodeInfo node : nodes) {
            PluginsAndModules plugins = node.getInfo(PluginsAndModules.class);
            assertTrue(
                node.getNode().getName() + " plugins: " + plugins.getPluginInfos(),
                plugins.getPluginInfos().stream().map(PluginInfo::getClassname).anyMatch(NearDupPlugin.class.getName()::equals)
            );
        }
    }
}
