package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/kustomize/api/krusty"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// newObject returns an empty typed object for apiVersion/kind; only the kinds our manifests
// may contain are known (a Secret, for one, must never be in the repository).
func newObject(apiVersion, kind string) (any, bool) {
	switch apiVersion + "/" + kind {
	case "v1/ConfigMap":
		return &corev1.ConfigMap{}, true
	case "v1/Service":
		return &corev1.Service{}, true
	case "v1/ServiceAccount":
		return &corev1.ServiceAccount{}, true
	case "apps/v1/Deployment":
		return &appsv1.Deployment{}, true
	case "autoscaling/v2/HorizontalPodAutoscaler":
		return &autoscalingv2.HorizontalPodAutoscaler{}, true
	case "policy/v1/PodDisruptionBudget":
		return &policyv1.PodDisruptionBudget{}, true
	case "batch/v1/Job":
		return &batchv1.Job{}, true
	case "networking.k8s.io/v1/NetworkPolicy":
		return &networkingv1.NetworkPolicy{}, true
	case "kustomize.config.k8s.io/v1beta1/Kustomization", "kustomize.config.k8s.io/v1alpha1/Component":
		return &kustypes.Kustomization{}, true
	case "monitoring.coreos.com/v1/ServiceMonitor":
		return &serviceMonitor{}, true
	}
	return nil, false
}

// decodeStrict decodes every YAML document of data into its Kubernetes API type; an
// unknown field, a duplicate field, a wrong type or an unknown kind is an error.
func decodeStrict(data []byte) ([]any, error) {
	var out []any
	for i, doc := range splitYAML(data) {
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		obj, ok := newObject(tm.APIVersion, tm.Kind)
		if !ok {
			return nil, fmt.Errorf("document %d: kind %s %s is not expected in our manifests", i, tm.APIVersion, tm.Kind)
		}
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			return nil, fmt.Errorf("document %d (%s): %w", i, tm.Kind, err)
		}
		out = append(out, obj)
	}
	return out, nil
}

func splitYAML(data []byte) [][]byte {
	var docs [][]byte
	for _, d := range bytes.Split(data, []byte("\n---")) {
		if len(bytes.TrimSpace(stripComments(d))) > 0 {
			docs = append(docs, d)
		}
	}
	return docs
}

func stripComments(b []byte) []byte {
	var out []byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(l), []byte("#")) {
			out = append(append(out, l...), '\n')
		}
	}
	return out
}

func TestManifestDecoderRefusesWhatKubernetesWouldNotAccept(t *testing.T) {
	for _, c := range []struct{ name, doc string }{
		{"an unknown field", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  replica: 2\n"},
		{"a misplaced probe", "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec:\n  readinessProbe: {}\n"},
		{"a wrong type", "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: x}\nspec:\n  selector: app\n"},
		{"a Secret", "apiVersion: v1\nkind: Secret\nmetadata: {name: x}\nstringData: {password: hunter2}\n"},
		{"a duplicate field", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {}\ndata: {}\n"},
	} {
		if _, err := decodeStrict([]byte(c.doc)); err == nil {
			t.Errorf("%s was accepted", c.name)
		}
	}
}

// Every YAML file under the deploy directories (the services' and the shared component's)
// decodes strictly; every file a kustomization refers to exists.
func TestEveryManifestFileDecodesStrictlyIntoTheKubernetesTypes(t *testing.T) {
	root := repoRoot(t)
	dirs := []string{filepath.Join(root, "deploy", "components", "service")}
	for _, s := range services {
		dirs = append(dirs, filepath.Join(root, "services", s.name, "deploy"))
	}
	for _, dir := range dirs {
		n := 0
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
				return err
			}
			n++
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			if isYAMLList(data) { // a JSON patch or a list of replacements: kustomize reads it
				return nil
			}
			objs, err := decodeStrict(data)
			if err != nil {
				t.Errorf("%s: %v", rel, err)
				return nil
			}
			for _, o := range objs {
				if k, ok := o.(*kustypes.Kustomization); ok {
					refs := append(append(append([]string{}, k.Resources...), k.Components...), patchPaths(k)...)
					for _, g := range k.ConfigMapGenerator {
						refs = append(refs, g.EnvSources...)
					}
					for _, r := range k.Replacements {
						if r.Path != "" {
							refs = append(refs, r.Path)
						}
					}
					for _, r := range refs {
						if _, err := os.Stat(filepath.Join(filepath.Dir(p), r)); err != nil {
							t.Errorf("%s refers to %s, which does not exist", rel, r)
						}
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n < 5 {
			t.Errorf("%s: only %d manifest files", dir, n)
		}
	}
}

func isYAMLList(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimSpace(stripComments(data)), []byte("- "))
}

func patchPaths(k *kustypes.Kustomization) []string {
	var out []string
	for _, p := range k.Patches {
		if p.Path != "" {
			out = append(out, p.Path)
		}
	}
	return out
}

// serviceMonitor is the part of the Prometheus Operator's ServiceMonitor the overlays use;
// strict decoding refuses any other field.
type serviceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Selector  metav1.LabelSelector `json:"selector"`
		Endpoints []struct {
			Port     string `json:"port"`
			Path     string `json:"path,omitempty"`
			Interval string `json:"interval,omitempty"`
		} `json:"endpoints"`
	} `json:"spec"`
}

// rendered is one kustomization rendered by kustomize and decoded strictly.
type rendered struct {
	deployments     []*appsv1.Deployment
	services        []*corev1.Service
	configMaps      []*corev1.ConfigMap
	hpas            []*autoscalingv2.HorizontalPodAutoscaler
	pdbs            []*policyv1.PodDisruptionBudget
	netpols         []*networkingv1.NetworkPolicy
	serviceAccts    []*corev1.ServiceAccount
	serviceMonitors []*serviceMonitor
}

func render(t *testing.T, dir string) rendered {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	rm, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	out, err := rm.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decodeStrict(out)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	var r rendered
	for _, o := range objs {
		switch o := o.(type) {
		case *appsv1.Deployment:
			r.deployments = append(r.deployments, o)
		case *corev1.Service:
			r.services = append(r.services, o)
		case *corev1.ConfigMap:
			r.configMaps = append(r.configMaps, o)
		case *autoscalingv2.HorizontalPodAutoscaler:
			r.hpas = append(r.hpas, o)
		case *policyv1.PodDisruptionBudget:
			r.pdbs = append(r.pdbs, o)
		case *networkingv1.NetworkPolicy:
			r.netpols = append(r.netpols, o)
		case *corev1.ServiceAccount:
			r.serviceAccts = append(r.serviceAccts, o)
		case *serviceMonitor:
			r.serviceMonitors = append(r.serviceMonitors, o)
		case *batchv1.Job:
			// A Job's pod template is immutable: a second `kubectl apply -k` with a new image fails.
			t.Errorf("%s renders the Job %s: migrations run in the pods' init container", dir, o.Name)
		default:
			t.Errorf("unexpected rendered object %T", o)
		}
	}
	for name, n := range map[string]int{
		"Deployment": len(r.deployments), "Service": len(r.services), "ConfigMap": len(r.configMaps),
		"HorizontalPodAutoscaler": len(r.hpas), "PodDisruptionBudget": len(r.pdbs),
		"NetworkPolicy": len(r.netpols), "ServiceAccount": len(r.serviceAccts),
	} {
		if n != 1 {
			t.Fatalf("%s renders %d %s, want 1", dir, n, name)
		}
	}
	return r
}

func TestManifestsRenderAndKeepTheOperationalInvariants(t *testing.T) {
	root := repoRoot(t)
	for _, s := range services {
		for _, variant := range []string{"base", "overlays/example"} {
			t.Run(s.name+"/"+variant, func(t *testing.T) {
				r := render(t, filepath.Join(root, "services", s.name, "deploy", filepath.FromSlash(variant)))
				checkInvariants(t, s.name, s.port, r)
				if variant != "base" {
					checkOverlay(t, s.name, r)
				} else if len(r.serviceMonitors) != 0 {
					t.Error("the base has a ServiceMonitor: it needs the Prometheus Operator's CRD, an overlay's choice")
				}
			})
		}
	}
}

// The metrics port every base uses: METRICS_ADDR's default, the same in every service.
const metricsPort = 9090

func checkInvariants(t *testing.T, name string, port int, r rendered) {
	t.Helper()
	d := r.deployments[0]
	pod := d.Spec.Template
	podLabels := labels.Set(pod.Labels)

	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || !sel.Matches(podLabels) {
		t.Errorf("the Deployment's selector does not match its pods (%v)", err)
	}
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	checkImage(t, "Deployment", c.Image, name)
	checkSecurity(t, "Deployment", pod.Spec, c)
	checkResources(t, "Deployment", c)
	if pod.Spec.AutomountServiceAccountToken == nil || *pod.Spec.AutomountServiceAccountToken {
		t.Error("the pods mount a service account token they do not need")
	}
	if got := containerPort(c, "http"); got != int32(port) {
		t.Errorf("container port http = %d, want %d", got, port)
	}
	checkProbe(t, "readiness", c.ReadinessProbe, "/readyz", c)
	checkProbe(t, "liveness", c.LivenessProbe, "/healthz", c)
	checkProbe(t, "startup", c.StartupProbe, "/healthz", c)
	checkSecretRefs(t, c)
	checkMemoryLimit(t, c)

	// Configuration: a generated ConfigMap whose name carries the hash of its content, read by
	// the pods under that name, so a configuration change is a new pod template (a rollout).
	cm := r.configMaps[0]
	base, _, ok := cutHashSuffix(cm.Name)
	if !ok || base != name+"-config" {
		t.Errorf("ConfigMap %s: want %s-config-<hash> (configMapGenerator), so configuration changes roll the pods", cm.Name, name)
	}
	if !envFromConfigMap(c, cm.Name) {
		t.Errorf("the container does not read the ConfigMap %s", cm.Name)
	}

	// Shutdown: preStop pause, then SIGTERM drains within the grace period.
	drain, err := time.ParseDuration(cm.Data["SHUTDOWN_DRAIN"])
	if err != nil {
		t.Fatalf("SHUTDOWN_DRAIN %q: %v", cm.Data["SHUTDOWN_DRAIN"], err)
	}
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil {
		t.Fatal("no preStop hook: a pod would get SIGTERM while still receiving traffic")
	}
	pause := time.Duration(0)
	if s := c.Lifecycle.PreStop.Sleep; s != nil {
		pause = time.Duration(s.Seconds) * time.Second
	} else if c.Lifecycle.PreStop.Exec != nil {
		t.Error("preStop runs a command, but the distroless image has no shell or sleep: use the sleep action")
	}
	if pause <= 0 {
		t.Error("the preStop hook does not pause")
	}
	grace := time.Duration(*pod.Spec.TerminationGracePeriodSeconds) * time.Second
	if grace <= pause+drain {
		t.Errorf("terminationGracePeriodSeconds %s <= preStop %s + SHUTDOWN_DRAIN %s", grace, pause, drain)
	}

	// Migrations complete before the API serves: an init container runs `<service> migrate`
	// (under an advisory lock, pkg/pgxdb) with the API's image, configuration and database.
	checkMigrateInitContainer(t, pod.Spec, c)

	// /metrics on its own port: the container, the Service, the scrape annotations and the
	// configuration agree, and it is not the API's port.
	if got := containerPort(c, "metrics"); got != metricsPort || got == int32(port) {
		t.Errorf("container port metrics = %d, want %d (apart from the API's %d)", got, metricsPort, port)
	}
	if addr := cm.Data["METRICS_ADDR"]; addr != fmt.Sprintf(":%d", metricsPort) {
		t.Errorf("METRICS_ADDR %q does not match the container port metrics (%d)", addr, metricsPort)
	}
	if a := pod.Annotations; a["prometheus.io/scrape"] != "true" || a["prometheus.io/port"] != fmt.Sprint(metricsPort) || a["prometheus.io/path"] != "/metrics" {
		t.Errorf("scrape annotations %v: want /metrics on port %d", a, metricsPort)
	}

	// Service routes to the pods' named ports: http for the API, metrics for scrapes.
	svc := r.services[0]
	if !labels.SelectorFromSet(svc.Spec.Selector).Matches(podLabels) {
		t.Error("the Service's selector does not match the pods")
	}
	targets := map[string]bool{}
	for _, p := range svc.Spec.Ports {
		if p.TargetPort.Type == intstr.String && containerPort(c, p.TargetPort.StrVal) == 0 {
			t.Errorf("Service targetPort %s names no container port", p.TargetPort.StrVal)
		}
		targets[p.Name+"->"+p.TargetPort.String()] = true
	}
	if !targets["http->http"] || !targets["metrics->metrics"] {
		t.Errorf("Service ports %v: want http -> http and metrics -> metrics", targets)
	}

	// The HPA scales this Deployment, keeps enough pods for the PDB to allow a drain, and owns
	// the count alone: a replicas field would reset it on every apply.
	hpa := r.hpas[0]
	ref := hpa.Spec.ScaleTargetRef
	if ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" || ref.Name != d.Name {
		t.Errorf("HPA targets %s %s %s, want apps/v1 Deployment %s", ref.APIVersion, ref.Kind, ref.Name, d.Name)
	}
	if d.Spec.Replicas != nil {
		t.Errorf("the Deployment sets replicas %d although the HPA owns the count", *d.Spec.Replicas)
	}
	if hpa.Spec.MinReplicas == nil || *hpa.Spec.MinReplicas < 2 || *hpa.Spec.MinReplicas > hpa.Spec.MaxReplicas {
		t.Errorf("HPA min %v max %d: want 2 <= min <= max", hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas)
	}
	if len(hpa.Spec.Metrics) == 0 {
		t.Error("the HPA has no metric")
	}

	// The PDB protects exactly the API pods.
	pdb := r.pdbs[0]
	psel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil || !psel.Matches(podLabels) {
		t.Errorf("the PDB's selector does not match the pods (%v)", err)
	}
	if pdb.Spec.MinAvailable == nil && pdb.Spec.MaxUnavailable == nil {
		t.Error("the PDB sets neither minAvailable nor maxUnavailable")
	}

	// The NetworkPolicy isolates the pods in both directions and lets DNS through.
	np := r.netpols[0]
	nsel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
	if err != nil || !nsel.Matches(podLabels) {
		t.Errorf("the NetworkPolicy does not select the pods (%v)", err)
	}
	types := map[networkingv1.PolicyType]bool{}
	for _, pt := range np.Spec.PolicyTypes {
		types[pt] = true
	}
	if !types[networkingv1.PolicyTypeIngress] || !types[networkingv1.PolicyTypeEgress] {
		t.Errorf("NetworkPolicy policyTypes %v, want Ingress and Egress", np.Spec.PolicyTypes)
	}
	if !allowsEgressPort(np, 53) || !allowsEgressPort(np, 5432) {
		t.Error("the NetworkPolicy does not let DNS and PostgreSQL through")
	}
	ingressPorts := map[string]bool{}
	for _, in := range np.Spec.Ingress {
		for _, p := range in.Ports {
			if p.Port != nil && p.Port.Type == intstr.String && containerPort(c, p.Port.StrVal) == 0 {
				t.Errorf("NetworkPolicy ingress port %s names no container port", p.Port.StrVal)
			}
			if p.Port != nil {
				ingressPorts[p.Port.String()] = true
			}
		}
	}
	if !ingressPorts["http"] || !ingressPorts["metrics"] {
		t.Errorf("NetworkPolicy ingress ports %v: want http and metrics", ingressPorts)
	}
	if pod.Spec.ServiceAccountName != r.serviceAccts[0].Name {
		t.Errorf("the pods run as service account %q, not the one of the base (%s)", pod.Spec.ServiceAccountName, r.serviceAccts[0].Name)
	}
}

// cutHashSuffix splits a generated name: name-<10 characters of kustomize's hash alphabet>.
func cutHashSuffix(s string) (name, hash string, ok bool) {
	i := strings.LastIndex(s, "-")
	if i < 0 || len(s)-i-1 != 10 {
		return s, "", false
	}
	return s[:i], s[i+1:], regexp.MustCompile(`^[bcdfghkmt2-9]{10}$`).MatchString(s[i+1:])
}

func checkMigrateInitContainer(t *testing.T, pod corev1.PodSpec, c corev1.Container) {
	t.Helper()
	if len(pod.InitContainers) != 1 {
		t.Fatalf("%d init containers, want the migrate one", len(pod.InitContainers))
	}
	ic := pod.InitContainers[0]
	if strings.Join(ic.Args, " ") != "migrate" || len(ic.Command) > 0 {
		t.Errorf("the init container runs command %v args %v, want the image's entrypoint with args [migrate]", ic.Command, ic.Args)
	}
	if ic.RestartPolicy != nil {
		t.Error("the migrate init container is a sidecar (restartPolicy): the API would not wait for it")
	}
	if ic.Image != c.Image {
		t.Errorf("the init container's image %s differs from the API's %s", ic.Image, c.Image)
	}
	if !equalJSON(ic.EnvFrom, c.EnvFrom) {
		t.Errorf("the init container reads %v, the API %v: want the same configuration", ic.EnvFrom, c.EnvFrom)
	}
	if !hasSecretEnv(ic, "DATABASE_URL") || !equalJSON(envVar(ic, "DATABASE_URL"), envVar(c, "DATABASE_URL")) {
		t.Error("the init container does not read the API's DATABASE_URL Secret")
	}
	checkSecurity(t, "init container", pod, ic)
	checkResources(t, "init container", ic)
	checkSecretRefs(t, ic)
}

// checkMemoryLimit: GOMEMLIMIT leaves headroom under the container's memory limit. It is
// $(X)MiB where X is the limit in units of 1.25 MiB (a resourceFieldRef), i.e. 80% of it.
func checkMemoryLimit(t *testing.T, c corev1.Container) {
	t.Helper()
	gml := envVar(c, "GOMEMLIMIT")
	if gml == nil {
		t.Fatal("GOMEMLIMIT is not set: the Go heap may grow to the memory limit and the pod be OOM-killed")
	}
	m := regexp.MustCompile(`^\$\(([A-Z0-9_]+)\)MiB$`).FindStringSubmatch(gml.Value)
	if m == nil {
		t.Fatalf("GOMEMLIMIT = %q, want $(VAR)MiB with VAR the memory limit in 1.25 MiB units", gml.Value)
	}
	ref := envVar(c, m[1])
	if ref == nil || ref.ValueFrom == nil || ref.ValueFrom.ResourceFieldRef == nil ||
		ref.ValueFrom.ResourceFieldRef.Resource != "limits.memory" {
		t.Fatalf("%s is not the container's memory limit (resourceFieldRef limits.memory)", m[1])
	}
	if envIndex(c, m[1]) > envIndex(c, "GOMEMLIMIT") {
		t.Errorf("%s comes after GOMEMLIMIT: Kubernetes expands only variables defined before", m[1])
	}
	limit := c.Resources.Limits[corev1.ResourceMemory]
	div := ref.ValueFrom.ResourceFieldRef.Divisor
	mib := (limit.Value() + div.Value() - 1) / div.Value() // Kubernetes rounds up
	frac := float64(mib<<20) / float64(limit.Value())
	if frac < 0.7 || frac > 0.9 {
		t.Errorf("GOMEMLIMIT is %d MiB of a %s limit (%.0f%%): want about 80%%", mib, limit.String(), frac*100)
	}
}

func envVar(c corev1.Container, name string) *corev1.EnvVar {
	if i := envIndex(c, name); i >= 0 {
		return &c.Env[i]
	}
	return nil
}

func envIndex(c corev1.Container, name string) int {
	for i, e := range c.Env {
		if e.Name == name {
			return i
		}
	}
	return -1
}

func equalJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

func checkOverlay(t *testing.T, name string, r rendered) {
	t.Helper()
	d := r.deployments[0]
	if d.Namespace == "" {
		t.Error("the overlay sets no namespace")
	}
	img := d.Spec.Template.Spec.Containers[0].Image
	if !strings.HasPrefix(img, "registry.example.com/videotpl/"+name+":") {
		t.Errorf("the overlay's image is %s, want the example registry's", img)
	}
	if r.configMaps[0].Data["LOG_LEVEL"] != "warn" {
		t.Errorf("the overlay's configuration did not apply (LOG_LEVEL %q)", r.configMaps[0].Data["LOG_LEVEL"])
	}
	if d.Spec.Template.Spec.InitContainers[0].Image != img {
		t.Error("the overlay's image does not reach the migrate init container")
	}
	// The ServiceMonitor scrapes the Service's metrics port.
	if len(r.serviceMonitors) != 1 {
		t.Fatalf("the overlay renders %d ServiceMonitors, want 1", len(r.serviceMonitors))
	}
	sm := r.serviceMonitors[0]
	svc := r.services[0]
	ssel, err := metav1.LabelSelectorAsSelector(&sm.Spec.Selector)
	if err != nil || !ssel.Matches(labels.Set(svc.Labels)) || sm.Namespace != svc.Namespace {
		t.Errorf("the ServiceMonitor does not select the Service %s/%s (%v)", svc.Namespace, svc.Name, err)
	}
	if len(sm.Spec.Endpoints) != 1 || sm.Spec.Endpoints[0].Port != "metrics" {
		t.Errorf("the ServiceMonitor scrapes %v, want the port metrics", sm.Spec.Endpoints)
	}
}

func checkImage(t *testing.T, what, image, name string) {
	t.Helper()
	if !pinned(image) {
		t.Errorf("%s image %q is not pinned to a tag (or is latest)", what, image)
	}
	if !strings.Contains(image, "videotpl/"+name) {
		t.Errorf("%s image %q is not the %s image", what, image, name)
	}
}

func checkSecurity(t *testing.T, what string, pod corev1.PodSpec, c corev1.Container) {
	t.Helper()
	psc, sc := pod.SecurityContext, c.SecurityContext
	if sc == nil {
		t.Fatalf("%s: the container has no securityContext", what)
	}
	nonRoot := (sc.RunAsNonRoot != nil && *sc.RunAsNonRoot) || (psc != nil && psc.RunAsNonRoot != nil && *psc.RunAsNonRoot)
	if !nonRoot {
		t.Errorf("%s: runAsNonRoot is not set", what)
	}
	if uid := sc.RunAsUser; uid != nil && *uid == 0 {
		t.Errorf("%s: the container runs as uid 0", what)
	}
	if psc != nil && psc.RunAsUser != nil && *psc.RunAsUser == 0 {
		t.Errorf("%s: the pod runs as uid 0", what)
	}
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("%s: the root filesystem is writable", what)
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Errorf("%s: privilege escalation is allowed", what)
	}
	if sc.Privileged != nil && *sc.Privileged {
		t.Errorf("%s: the container is privileged", what)
	}
	if sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || len(sc.Capabilities.Add) > 0 {
		t.Errorf("%s: capabilities are not drop [ALL]", what)
	}
	seccomp := sc.SeccompProfile
	if seccomp == nil && psc != nil {
		seccomp = psc.SeccompProfile
	}
	if seccomp == nil || seccomp.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("%s: the seccomp profile is not RuntimeDefault", what)
	}
}

func checkResources(t *testing.T, what string, c corev1.Container) {
	t.Helper()
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, okReq := c.Resources.Requests[r]
		lim, okLim := c.Resources.Limits[r]
		if !okReq || !okLim {
			t.Errorf("%s: %s request or limit is missing", what, r)
			continue
		}
		if req.Cmp(lim) > 0 {
			t.Errorf("%s: %s request %s exceeds the limit %s", what, r, req.String(), lim.String())
		}
	}
}

func checkProbe(t *testing.T, what string, p *corev1.Probe, path string, c corev1.Container) {
	t.Helper()
	if p == nil || p.HTTPGet == nil {
		t.Errorf("no HTTP %s probe", what)
		return
	}
	if p.HTTPGet.Path != path {
		t.Errorf("%s probe on %s, want %s", what, p.HTTPGet.Path, path)
	}
	port := p.HTTPGet.Port
	if (port.Type == intstr.String && containerPort(c, port.StrVal) == 0) ||
		(port.Type == intstr.Int && !hasPort(c, port.IntVal)) {
		t.Errorf("%s probe port %s is not a container port", what, port.String())
	}
}

// secretNames are variables whose values are credentials: they may only come from a Secret.
var secretNames = []string{"DATABASE_URL", "AMQP_URL", "JWT_HS256_SECRET", "SERVICE_TOKENS", "S3_ACCESS_KEY",
	"S3_SECRET_KEY", "SVG_AI_API_KEY", "SEAL_KEYS"}

func checkSecretRefs(t *testing.T, c corev1.Container) {
	t.Helper()
	if !hasSecretEnv(c, "DATABASE_URL") {
		t.Error("DATABASE_URL does not come from a Secret (secretKeyRef)")
	}
	for _, e := range c.Env {
		for _, s := range secretNames {
			if e.Name == s && e.Value != "" {
				t.Errorf("%s has a literal value in the manifest", e.Name)
			}
		}
		if strings.Contains(e.Name, "SECRET") && e.ValueFrom == nil {
			t.Errorf("%s is not read from a Secret", e.Name)
		}
	}
}

func hasSecretEnv(c corev1.Container, name string) bool {
	for _, e := range c.Env {
		if e.Name == name && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name != "" {
			return true
		}
	}
	return false
}

func envFromConfigMap(c corev1.Container, name string) bool {
	for _, e := range c.EnvFrom {
		if e.ConfigMapRef != nil && e.ConfigMapRef.Name == name {
			return true
		}
	}
	return false
}

func containerPort(c corev1.Container, name string) int32 {
	for _, p := range c.Ports {
		if p.Name == name {
			return p.ContainerPort
		}
	}
	return 0
}

func hasPort(c corev1.Container, port int32) bool {
	for _, p := range c.Ports {
		if p.ContainerPort == port {
			return true
		}
	}
	return false
}

func allowsEgressPort(np *networkingv1.NetworkPolicy, port int32) bool {
	for _, e := range np.Spec.Egress {
		for _, p := range e.Ports {
			if p.Port != nil && p.Port.Type == intstr.Int && p.Port.IntVal == port {
				return true
			}
		}
	}
	return false
}

// The ConfigMaps hold no credentials: those belong in Secrets created outside the repository.
func TestNoManifestCarriesASecretValue(t *testing.T) {
	root := repoRoot(t)
	for _, s := range services {
		for _, variant := range []string{"base", "overlays/example"} {
			r := render(t, filepath.Join(root, "services", s.name, "deploy", filepath.FromSlash(variant)))
			for k := range r.configMaps[0].Data {
				for _, secret := range secretNames {
					if k == secret {
						t.Errorf("%s/%s: ConfigMap holds the credential %s", s.name, variant, k)
					}
				}
			}
		}
	}
}

// A configuration change rolls the pods: the overlay's configuration is another ConfigMap name
// (its hash), and the pod template, init container included, refers to that name.
func TestManifestConfigurationChangeRenamesTheConfigMapThePodsRead(t *testing.T) {
	root := repoRoot(t)
	for _, s := range services {
		base := render(t, filepath.Join(root, "services", s.name, "deploy", "base"))
		overlay := render(t, filepath.Join(root, "services", s.name, "deploy", "overlays", "example"))
		bn, on := base.configMaps[0].Name, overlay.configMaps[0].Name
		if bn == on {
			t.Errorf("%s: the overlay changes the configuration but the ConfigMap keeps the name %s: the pods would not roll", s.name, bn)
		}
		for _, r := range []rendered{base, overlay} {
			pod := r.deployments[0].Spec.Template.Spec
			for _, c := range append(append([]corev1.Container{}, pod.InitContainers...), pod.Containers...) {
				if !envFromConfigMap(c, r.configMaps[0].Name) {
					t.Errorf("%s: container %s does not read %s", s.name, c.Name, r.configMaps[0].Name)
				}
			}
		}
	}
}

// Go runtime variables the pods set beside the service's own (`help` lists the service's).
var runtimeVars = map[string]bool{"GOMEMLIMIT": true, "MEMORY_LIMIT_80_PERCENT_MIB": true}

// Each base asks for what its binary uses and nothing else: every variable it sets is one
// `<service> help` lists, and its NetworkPolicy opens the broker, the object storage and the
// collector exactly when the binary reads their addresses; the metrics port is METRICS_ADDR's
// default.
func TestManifestOfEachBaseMatchesWhatItsBinaryUses(t *testing.T) {
	root := repoRoot(t)
	for _, s := range services {
		t.Run(s.name, func(t *testing.T) {
			bin := serviceBinary(t, s.name)
			vars, defs := envVars(t, bin), helpDefaults(t, bin)
			r := render(t, filepath.Join(root, "services", s.name, "deploy", "base"))
			for k := range r.configMaps[0].Data {
				if !vars[k] {
					t.Errorf("ConfigMap key %s is not an environment variable of %s (see `%s help`)", k, s.name, s.name)
				}
			}
			pod := r.deployments[0].Spec.Template.Spec
			for _, c := range append(append([]corev1.Container{}, pod.InitContainers...), pod.Containers...) {
				for _, e := range c.Env {
					if !vars[e.Name] && !runtimeVars[e.Name] {
						t.Errorf("container %s sets %s, which %s does not read", c.Name, e.Name, s.name)
					}
				}
			}
			if defs["METRICS_ADDR"] != fmt.Sprintf(":%d", metricsPort) {
				t.Errorf("METRICS_ADDR defaults to %q, the manifests use :%d", defs["METRICS_ADDR"], metricsPort)
			}
			np := r.netpols[0]
			for _, c := range []struct {
				variable string
				ports    []int32
				what     string
			}{
				{"AMQP_URL", []int32{5672, 5671}, "RabbitMQ"},
				{"S3_ENDPOINT", []int32{9000}, "the object storage"},
				{"OTEL_EXPORTER_OTLP_ENDPOINT", []int32{4318}, "the OTLP collector"},
				{"DATABASE_URL", []int32{5432}, "PostgreSQL"},
			} {
				for _, p := range c.ports {
					if open := allowsEgressPort(np, p); open != vars[c.variable] {
						t.Errorf("egress to %s (port %d) open = %v, but %s reads %s = %v", c.what, p, open, s.name, c.variable, vars[c.variable])
					}
				}
			}
			// The deploy README names only variables of the binary (Secrets included).
			readme, err := os.ReadFile(filepath.Join(root, "services", s.name, "deploy", "README.md"))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range regexp.MustCompile("`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`").FindAllStringSubmatch(string(readme), -1) {
				if !vars[m[1]] && !runtimeVars[m[1]] {
					t.Errorf("deploy/README.md names %s, which %s does not read", m[1], s.name)
				}
			}
		})
	}
}

// The metrics a deploy README documents are ones its service registers: the broker's only
// where the service uses the broker, the queue and outbox gauges only where it runs the
// backlog collector (read from the service's wiring).
func TestManifestReadmesDocumentOnlyMetricsTheServiceExports(t *testing.T) {
	root := repoRoot(t)
	for _, s := range services {
		readme, err := os.ReadFile(filepath.Join(root, "services", s.name, "deploy", "README.md"))
		if err != nil {
			t.Fatal(err)
		}
		var wiring []byte
		files, _ := filepath.Glob(filepath.Join(root, "services", s.name, "cmd", s.name, "*.go"))
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				wiring = append(wiring, b...)
			}
		}
		uses := func(call string) bool { return bytes.Contains(wiring, []byte(call)) }
		for _, m := range regexp.MustCompile("`((?:bus|http|build)_[a-z_]+)`").FindAllStringSubmatch(string(readme), -1) {
			name := m[1]
			var ok bool
			switch {
			case name == "build_info", strings.HasPrefix(name, "http_"):
				ok = true
			case strings.HasPrefix(name, "bus_queue_"), strings.HasPrefix(name, "bus_outbox_"), name == "bus_backlog_up":
				ok = uses("bus.NewBacklogCollector(")
			case strings.HasPrefix(name, "bus_message"):
				ok = uses("bus.NewPrometheusMetrics(")
			}
			if !ok {
				t.Errorf("services/%s/deploy/README.md documents %s, which %s does not export", s.name, name, s.name)
			}
		}
	}
}

// The NetworkPolicy's peer namespaces are parameters: an overlay that sets others gets them,
// and no rendered NetworkPolicy names a namespace that is not a parameter.
func TestManifestNetworkPolicyNamespacesAreParameters(t *testing.T) {
	root := repoRoot(t)
	for _, s := range services {
		overlayDir := filepath.Join(root, "services", s.name, "deploy", "overlays", "example")
		for _, dir := range []string{filepath.Join(root, "services", s.name, "deploy", "base"), overlayDir} {
			checkNamespaceSelectors(t, render(t, dir).netpols[0], "ingress-nginx", "monitoring")
		}
		// An environment with other namespaces: the example overlay with other parameters.
		tmp := t.TempDir()
		ex, err := os.ReadFile(filepath.Join(overlayDir, "kustomization.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(tmp, filepath.Join(root, "services", s.name, "deploy", "base"))
		if err != nil {
			t.Fatal(err)
		}
		k := strings.NewReplacer("../../base", filepath.ToSlash(rel), "ingressNamespace: ingress-nginx", "ingressNamespace: edge",
			"monitoringNamespace: monitoring", "monitoringNamespace: observability").Replace(string(ex))
		for _, f := range []string{"servicemonitor.yaml", "hpa.yaml", "resources.yaml"} {
			b, err := os.ReadFile(filepath.Join(overlayDir, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(tmp, f), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(tmp, "kustomization.yaml"), []byte(k), 0o600); err != nil {
			t.Fatal(err)
		}
		checkNamespaceSelectors(t, render(t, tmp).netpols[0], "edge", "observability")
	}
}

func checkNamespaceSelectors(t *testing.T, np *networkingv1.NetworkPolicy, ingress, monitoring string) {
	t.Helper()
	byPort := map[string]string{}
	for _, in := range np.Spec.Ingress {
		for _, from := range in.From {
			if from.NamespaceSelector == nil {
				continue
			}
			ns := from.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"]
			if ns != ingress && ns != monitoring {
				t.Errorf("%s admits the namespace %q, which is no parameter (%s, %s)", np.Name, ns, ingress, monitoring)
			}
			for _, p := range in.Ports {
				byPort[p.Port.String()] = ns
			}
		}
	}
	if byPort["http"] != ingress || byPort["metrics"] != monitoring {
		t.Errorf("%s admits %v, want http from %s and metrics from %s", np.Name, byPort, ingress, monitoring)
	}
	for _, e := range np.Spec.Egress {
		for _, to := range e.To {
			if to.NamespaceSelector != nil && len(to.NamespaceSelector.MatchLabels) > 0 {
				t.Errorf("%s's egress names namespaces %v", np.Name, to.NamespaceSelector.MatchLabels)
			}
		}
	}
}
