package io.neardup;

import org.opensearch.action.admin.cluster.node.info.NodesInfoResponse;
import org.opensearch.action.admin.cluster.node.info.NodesInfoRequest;
import org.opensearch.action.admin.cluster.node.info.PluginsAndModules;
import org.opensearch.plugins.Plugin;
import org.opensearch.plugins.PluginInfo;
import org.opensearch.test.OpenSearchSingleNodeTestCase;

import java.util.Collection;
import java.util.List;

public class NearDupPluginSingleNodeTests extends OpenSearchSingleNodeTestCase {

    @Override
    protected Collection<Class<? extends Plugin>> getPlugins() {
        return List.of(NearDupPlugin.class);
    }

    public void testPluginIsLoaded() {
        NodesInfoResponse response = client().admin().cluster().prepareNodesInfo().clear().addMetric(NodesInfoRequest.Metric.PLUGINS.metricName()).get();
        assertEquals(1, response.getNodes().size());
        PluginsAndModules plugins = response.getNodes().get(0).getInfo(PluginsAndModules.class);
        assertTrue(
            "plugins: " + plugins.getPluginInfos(),
            plugins.getPluginInfos().stream().map(PluginInfo::getClassname).anyMatch(NearDupPlugin.class.getName()::equals)
        );
    }
}
