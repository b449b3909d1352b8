package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
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
	case "kustomize.config.k8s.io/v1beta1/Kustomization":
		return &kustypes.Kustomization{}, true
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

func TestTheStrictDecoderRefusesWhatKubernetesWouldNotAccept(t *testing.T) {
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

// Every YAML file under deploy/ decodes strictly; every kustomization's resources and
// patches exist.
func TestEveryManifestFileDecodesStrictlyIntoTheKubernetesTypes(t *testing.T) {
	root := repoRoot(t)
	for _, s := range services {
		dir := filepath.Join(root, "services", s.name, "deploy")
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
			objs, err := decodeStrict(data)
			rel, _ := filepath.Rel(root, p)
			if err != nil {
				t.Errorf("%s: %v", rel, err)
				return nil
			}
			for _, o := range objs {
				if k, ok := o.(*kustypes.Kustomization); ok {
					refs := append(append([]string{}, k.Resources...), patchPaths(k)...)
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
		if n < 10 {
			t.Errorf("%s: only %d manifest files", dir, n)
		}
	}
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

// rendered is one kustomization rendered by kustomize and decoded strictly.
type rendered struct {
	deployments  []*appsv1.Deployment
	services     []*corev1.Service
	configMaps   []*corev1.ConfigMap
	hpas         []*autoscalingv2.HorizontalPodAutoscaler
	pdbs         []*policyv1.PodDisruptionBudget
	jobs         []*batchv1.Job
	netpols      []*networkingv1.NetworkPolicy
	serviceAccts []*corev1.ServiceAccount
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
		case *batchv1.Job:
			r.jobs = append(r.jobs, o)
		case *networkingv1.NetworkPolicy:
			r.netpols = append(r.netpols, o)
		case *corev1.ServiceAccount:
			r.serviceAccts = append(r.serviceAccts, o)
		default:
			t.Errorf("unexpected rendered object %T", o)
		}
	}
	for name, n := range map[string]int{
		"Deployment": len(r.deployments), "Service": len(r.services), "ConfigMap": len(r.configMaps),
		"HorizontalPodAutoscaler": len(r.hpas), "PodDisruptionBudget": len(r.pdbs), "Job": len(r.jobs),
		"NetworkPolicy": len(r.netpols), "ServiceAccount": len(r.serviceAccts),
	} {
		if n != 1 {
			t.Fatalf("%s renders %d %s, want 1", dir, n, name)
		}
	}
	return r
}

func TestTheKustomizationsRenderAndKeepTheOperationalInvariants(t *testing.T) {
	root := repoRoot(t)
	for _, s := range services {
		for _, variant := range []string{"base", "overlays/example"} {
			t.Run(s.name+"/"+variant, func(t *testing.T) {
				r := render(t, filepath.Join(root, "services", s.name, "deploy", filepath.FromSlash(variant)))
				checkInvariants(t, s.name, s.port, r)
				if variant != "base" {
					checkOverlay(t, s.name, r)
				}
				// Every key of the ConfigMap is a variable the service reads.
				vars := envVars(t, serviceBinary(t, s.name))
				for k := range r.configMaps[0].Data {
					if !vars[k] {
						t.Errorf("ConfigMap key %s is not an environment variable of %s (see `%s help`)", k, s.name, s.name)
					}
				}
			})
		}
	}
}

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
	checkSecretRefs(t, c)

	// Shutdown: preStop pause, then SIGTERM drains within the grace period.
	cm := r.configMaps[0]
	if !envFromConfigMap(c, cm.Name) {
		t.Errorf("the container does not read the ConfigMap %s", cm.Name)
	}
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

	// Service routes to the pods' named port.
	svc := r.services[0]
	if !labels.SelectorFromSet(svc.Spec.Selector).Matches(podLabels) {
		t.Error("the Service's selector does not match the pods")
	}
	for _, p := range svc.Spec.Ports {
		if p.TargetPort.Type == intstr.String && containerPort(c, p.TargetPort.StrVal) == 0 {
			t.Errorf("Service targetPort %s names no container port", p.TargetPort.StrVal)
		}
	}

	// The HPA scales this Deployment and keeps enough pods for the PDB to allow a drain.
	hpa := r.hpas[0]
	ref := hpa.Spec.ScaleTargetRef
	if ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" || ref.Name != d.Name {
		t.Errorf("HPA targets %s %s %s, want apps/v1 Deployment %s", ref.APIVersion, ref.Kind, ref.Name, d.Name)
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

	// The migration Job runs the same image with "migrate", outside the API's selectors.
	job := r.jobs[0]
	jpod := job.Spec.Template
	if len(jpod.Spec.Containers) != 1 {
		t.Fatalf("the Job has %d containers, want 1", len(jpod.Spec.Containers))
	}
	jc := jpod.Spec.Containers[0]
	if strings.Join(jc.Args, " ") != "migrate" || len(jc.Command) > 0 {
		t.Errorf("the Job runs command %v args %v, want the image's entrypoint with args [migrate]", jc.Command, jc.Args)
	}
	if jc.Image != c.Image {
		t.Errorf("the Job's image %s differs from the Deployment's %s", jc.Image, c.Image)
	}
	if jpod.Spec.RestartPolicy != corev1.RestartPolicyNever && jpod.Spec.RestartPolicy != corev1.RestartPolicyOnFailure {
		t.Errorf("the Job's restartPolicy is %q", jpod.Spec.RestartPolicy)
	}
	if job.Spec.BackoffLimit == nil || job.Spec.ActiveDeadlineSeconds == nil {
		t.Error("the Job is not bounded (backoffLimit, activeDeadlineSeconds)")
	}
	checkSecurity(t, "Job", jpod.Spec, jc)
	checkResources(t, "Job", jc)
	checkSecretRefs(t, jc)
	if !hasSecretEnv(jc, "DATABASE_URL") {
		t.Error("the Job does not read DATABASE_URL from a Secret")
	}
	jobLabels := labels.Set(jpod.Labels)
	if sel.Matches(jobLabels) || psel.Matches(jobLabels) || labels.SelectorFromSet(svc.Spec.Selector).Matches(jobLabels) {
		t.Error("the Job's pods match the Deployment, PDB or Service selector")
	}

	// The NetworkPolicy isolates the pods in both directions and lets DNS through.
	np := r.netpols[0]
	nsel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
	if err != nil || !nsel.Matches(podLabels) || !nsel.Matches(jobLabels) {
		t.Errorf("the NetworkPolicy does not select the API and Job pods (%v)", err)
	}
	types := map[networkingv1.PolicyType]bool{}
	for _, pt := range np.Spec.PolicyTypes {
		types[pt] = true
	}
	if !types[networkingv1.PolicyTypeIngress] || !types[networkingv1.PolicyTypeEgress] {
		t.Errorf("NetworkPolicy policyTypes %v, want Ingress and Egress", np.Spec.PolicyTypes)
	}
	if !allowsEgressPort(np, 53) || !allowsEgressPort(np, 5432) || !allowsEgressPort(np, 5672) {
		t.Error("the NetworkPolicy does not let DNS, PostgreSQL and RabbitMQ through")
	}
	for _, in := range np.Spec.Ingress {
		for _, p := range in.Ports {
			if p.Port != nil && p.Port.Type == intstr.String && containerPort(c, p.Port.StrVal) == 0 {
				t.Errorf("NetworkPolicy ingress port %s names no container port", p.Port.StrVal)
			}
		}
	}
	if pod.Spec.ServiceAccountName != r.serviceAccts[0].Name {
		t.Errorf("the pods run as service account %q, not the one of the base (%s)", pod.Spec.ServiceAccountName, r.serviceAccts[0].Name)
	}
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
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
		t.Errorf("the overlay's replicas = %v, want 3", d.Spec.Replicas)
	}
	if r.configMaps[0].Data["LOG_LEVEL"] != "warn" {
		t.Errorf("the overlay's config patch did not apply (LOG_LEVEL %q)", r.configMaps[0].Data["LOG_LEVEL"])
	}
	if r.jobs[0].Spec.Template.Spec.Containers[0].Image != img {
		t.Error("the overlay's image does not reach the migration Job")
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
