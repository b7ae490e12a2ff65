//! Which words of a command line the history may keep: the subcommand words
//! a tool family is known to have (`aws ec2 describe-vpcs`, `kubectl get
//! pods`, `redis-cli CONFIG GET`), never a free-form value. A password
//! after `redis-cli AUTH`, a pod name after `kubectl logs`, a script name
//! after `npm run` are arguments: recording stops at the first word that
//! is not a known subcommand at its place.
//!
//! Words of tools we do not know are kept only when they are common verbs
//! (`mytool list`). Learning a tool's subcommands from what is typed was
//! left out on purpose: keeping counts of unknown words, even hashed,
//! keeps a trace of every secret ever typed in that place.
//!
//! Over 600 lines on purpose: tables of subcommand words, one word a line
//! as rustfmt writes them; the logic is `subcommand_len` at the end.

/// Verbs many CLIs share; accepted for any tool at any level.
const VERBS: &[&str] = &[
    "add",
    "apply",
    "approve",
    "audit",
    "build",
    "cancel",
    "check",
    "checkout",
    "ci",
    "clean",
    "clone",
    "close",
    "commit",
    "config",
    "configure",
    "cp",
    "create",
    "delete",
    "deploy",
    "describe",
    "destroy",
    "diff",
    "disable",
    "download",
    "edit",
    "enable",
    "events",
    "exec",
    "explain",
    "export",
    "fetch",
    "fmt",
    "format",
    "get",
    "help",
    "history",
    "import",
    "info",
    "init",
    "inspect",
    "install",
    "lint",
    "list",
    "login",
    "logout",
    "logs",
    "ls",
    "merge",
    "mv",
    "outdated",
    "pack",
    "patch",
    "plan",
    "ps",
    "publish",
    "pull",
    "push",
    "remove",
    "rename",
    "restart",
    "restore",
    "rm",
    "rollback",
    "run",
    "scale",
    "scan",
    "search",
    "set",
    "show",
    "start",
    "stats",
    "status",
    "stop",
    "sync",
    "tag",
    "tail",
    "test",
    "top",
    "uninstall",
    "update",
    "upgrade",
    "upload",
    "validate",
    "version",
    "view",
    "wait",
    "watch",
    "whoami",
];

/// One tool family: its names, its first-level subcommands (each with the
/// words it takes next), and rules for open-ended levels.
struct Family {
    tools: &'static [&'static str],
    top: &'static [(&'static str, &'static [&'static str])],
    /// More first-level words, by shape (aws services are hundreds).
    top_rule: Option<fn(&str) -> bool>,
    /// Second-level words after any first-level one (aws operations).
    second_rule: Option<fn(&str) -> bool>,
    /// Third-level words (`gcloud compute instances list`).
    third: &'static [&'static str],
    /// Commands compared case-insensitively (redis).
    any_case: bool,
}

const NO: &[&str] = &[];
const K8S_RESOURCES: &[&str] = &[
    "all",
    "pods",
    "pod",
    "po",
    "deployments",
    "deployment",
    "deploy",
    "services",
    "service",
    "svc",
    "nodes",
    "node",
    "no",
    "namespaces",
    "namespace",
    "ns",
    "configmaps",
    "configmap",
    "cm",
    "secrets",
    "secret",
    "ingresses",
    "ingress",
    "ing",
    "jobs",
    "job",
    "cronjobs",
    "cronjob",
    "cj",
    "statefulsets",
    "statefulset",
    "sts",
    "daemonsets",
    "daemonset",
    "ds",
    "replicasets",
    "replicaset",
    "rs",
    "persistentvolumeclaims",
    "pvc",
    "persistentvolumes",
    "pv",
    "events",
    "ev",
    "endpoints",
    "ep",
    "serviceaccounts",
    "sa",
    "roles",
    "role",
    "rolebindings",
    "clusterroles",
    "clusterrolebindings",
    "crd",
    "crds",
    "customresourcedefinitions",
    "networkpolicies",
    "netpol",
    "storageclasses",
    "sc",
    "hpa",
    "horizontalpodautoscalers",
    "pdb",
    "limitranges",
    "resourcequotas",
    "quota",
    "leases",
    "apiservices",
    "certificates",
    "cert",
];
const K8S_ROLLOUT: &[&str] = &["status", "history", "restart", "undo", "pause", "resume"];
const K8S_CONFIG: &[&str] =
    &["view", "get-contexts", "current-context", "use-context", "get-clusters", "set-context", "set-cluster"];
const GH_SUBS: &[&str] = &[
    "checks", "checkout", "clone", "close", "comment", "create", "delete", "develop", "diff", "disable",
    "download", "edit", "enable", "fork", "list", "lock", "merge", "ready", "rename", "reopen", "rerun",
    "review", "run", "set", "status", "sync", "transfer", "unlock", "view", "watch", "cancel", "pin",
];
const GIT_STASH: &[&str] = &["list", "show", "pop", "apply", "drop", "push", "clear", "branch"];
const GIT_REMOTE: &[&str] = &["add", "remove", "rename", "show", "get-url", "set-url", "prune", "update"];
const GIT_WORKTREE: &[&str] = &["list", "add", "remove", "prune", "move", "lock", "unlock"];
const GIT_SUBMODULE: &[&str] = &["status", "update", "init", "sync", "foreach", "deinit", "summary"];
const COMPOSE: &[&str] = &[
    "up", "down", "ps", "logs", "build", "config", "pull", "push", "restart", "start", "stop", "exec", "run",
    "ls", "images", "top", "events", "rm", "kill",
];
const DOCKER_OBJECT: &[&str] = &["ls", "inspect", "prune", "rm", "create", "list", "history", "connect"];
const TF_STATE: &[&str] = &["list", "show", "mv", "rm", "pull", "push", "replace-provider"];
const TF_WORKSPACE: &[&str] = &["list", "select", "new", "show", "delete"];
const GO_MOD: &[&str] = &["tidy", "download", "why", "graph", "verify", "vendor", "edit", "init"];
const GCLOUD_RESOURCES: &[&str] = &[
    "instances",
    "disks",
    "images",
    "snapshots",
    "networks",
    "subnets",
    "firewall-rules",
    "routers",
    "routes",
    "addresses",
    "zones",
    "regions",
    "operations",
    "machine-types",
    "instance-groups",
    "instance-templates",
    "clusters",
    "node-pools",
    "projects",
    "service-accounts",
    "roles",
    "policies",
    "buckets",
    "objects",
    "services",
    "revisions",
    "jobs",
    "executions",
    "topics",
    "subscriptions",
    "secrets",
    "versions",
    "keys",
    "keyrings",
    "functions",
    "databases",
    "backups",
    "repositories",
    "configurations",
    "accounts",
    "logs",
    "sinks",
    "metrics",
    "builds",
    "triggers",
    "domains",
    "certificates",
    "connections",
    "workloads",
];
const AZ_SUBS: &[&str] = &[
    "list",
    "show",
    "create",
    "delete",
    "update",
    "start",
    "stop",
    "restart",
    "get-credentials",
    "set",
    "list-locations",
    "get-access-token",
    "nodepool",
    "nic",
    "vnet",
    "subnet",
    "nsg",
    "public-ip",
    "lb",
    "container",
    "blob",
    "account",
    "secret",
    "key",
    "certificate",
    "deployment",
    "log",
    "config",
];
const REDIS_CONFIG: &[&str] = &["GET", "SET", "RESETSTAT", "REWRITE"];
const REDIS_CLIENT: &[&str] = &["LIST", "INFO", "KILL", "ID", "GETNAME"];

/// Shortcut for first-level subcommands that take nothing known after them.
macro_rules! leaves {
    ($($w:literal),* $(,)?) => { &[$(($w, NO)),*] };
}

static FAMILIES: &[Family] = &[
    Family {
        tools: &["aws"],
        top: &[
            ("s3", &["ls", "cp", "mv", "rm", "sync", "mb", "rb", "presign", "website"]),
            ("configure", &["list", "get", "set"]),
        ],
        top_rule: Some(aws_service),
        second_rule: Some(aws_operation),
        third: NO,
        any_case: false,
    },
    Family {
        tools: &["kubectl", "oc", "k"],
        top: &[
            ("get", K8S_RESOURCES),
            ("describe", K8S_RESOURCES),
            ("delete", K8S_RESOURCES),
            ("edit", K8S_RESOURCES),
            ("explain", K8S_RESOURCES),
            ("top", &["pods", "pod", "po", "nodes", "node", "no"]),
            ("rollout", K8S_ROLLOUT),
            ("config", K8S_CONFIG),
            ("auth", &["can-i", "whoami", "reconcile"]),
            ("create", K8S_RESOURCES),
            ("logs", NO),
            ("apply", NO),
            ("exec", NO),
            ("port-forward", NO),
            ("scale", NO),
            ("label", NO),
            ("annotate", NO),
            ("patch", NO),
            ("cp", NO),
            ("wait", NO),
            ("diff", NO),
            ("events", NO),
            ("version", NO),
            ("cluster-info", NO),
            ("api-resources", NO),
            ("api-versions", NO),
            ("drain", NO),
            ("cordon", NO),
            ("uncordon", NO),
            ("taint", NO),
            ("debug", NO),
            ("kustomize", NO),
        ],
        top_rule: None,
        second_rule: None,
        third: K8S_RESOURCES,
        any_case: false,
    },
    Family {
        tools: &["gh"],
        top: &[
            ("pr", GH_SUBS),
            ("issue", GH_SUBS),
            ("repo", GH_SUBS),
            ("run", GH_SUBS),
            ("workflow", GH_SUBS),
            ("release", GH_SUBS),
            ("gist", GH_SUBS),
            ("label", GH_SUBS),
            ("secret", GH_SUBS),
            ("variable", GH_SUBS),
            ("cache", GH_SUBS),
            ("codespace", GH_SUBS),
            ("project", GH_SUBS),
            ("ruleset", GH_SUBS),
            ("extension", GH_SUBS),
            ("auth", &["status", "login", "logout", "refresh", "token", "switch", "setup-git"]),
            ("search", &["repos", "issues", "prs", "code", "commits"]),
            ("api", NO),
            ("browse", NO),
            ("status", NO),
        ],
        top_rule: None,
        second_rule: None,
        third: NO,
        any_case: false,
    },
    Family {
        tools: &["git"],
        top: &[
            ("stash", GIT_STASH),
            ("remote", GIT_REMOTE),
            ("worktree", GIT_WORKTREE),
            ("submodule", GIT_SUBMODULE),
            ("bisect", &["start", "good", "bad", "reset", "skip", "log", "run"]),
            ("notes", &["list", "show", "add", "remove"]),
        ],
        top_rule: Some(|w| {
            [
                "status",
                "diff",
                "log",
                "show",
                "branch",
                "switch",
                "commit",
                "push",
                "pull",
                "fetch",
                "clone",
                "add",
                "rm",
                "mv",
                "restore",
                "reset",
                "rebase",
                "merge",
                "tag",
                "blame",
                "grep",
                "ls-files",
                "ls-remote",
                "rev-parse",
                "rev-list",
                "describe",
                "cherry-pick",
                "revert",
                "config",
                "reflog",
                "shortlog",
                "clean",
                "init",
                "format-patch",
                "am",
                "apply",
                "archive",
                "checkout",
                "range-diff",
                "whatchanged",
                "cat-file",
                "for-each-ref",
                "name-rev",
                "count-objects",
                "gc",
                "fsck",
            ]
            .contains(&w)
        }),
        second_rule: None,
        third: NO,
        any_case: false,
    },
    Family {
        tools: &["docker", "podman"],
        top: &[
            ("compose", COMPOSE),
            ("container", DOCKER_OBJECT),
            ("image", DOCKER_OBJECT),
            ("volume", DOCKER_OBJECT),
            ("network", DOCKER_OBJECT),
            ("system", &["df", "prune", "info", "events"]),
            ("buildx", &["build", "ls", "inspect", "bake"]),
            ("context", &["ls", "use", "show", "inspect"]),
        ],
        top_rule: Some(|w| {
            [
                "ps", "images", "build", "run", "exec", "logs", "inspect", "pull", "push", "stats", "top",
                "version", "info", "rm", "rmi", "tag", "start", "stop", "restart", "kill", "cp", "diff",
                "history", "port", "events", "search", "save", "load", "login", "logout",
            ]
            .contains(&w)
        }),
        second_rule: None,
        third: NO,
        any_case: false,
    },
    Family {
        tools: &["docker-compose"],
        top: leaves!(
            "up", "down", "ps", "logs", "build", "config", "pull", "push", "restart", "start", "stop",
            "exec", "run", "images", "top", "events", "rm", "kill"
        ),
        top_rule: None,
        second_rule: None,
        third: NO,
        any_case: false,
    },
    Family {
        tools: &["cargo"],
        top: leaves!(
            "build", "b", "test", "t", "check", "c", "clippy", "run", "r", "fmt", "doc", "bench", "tree",
            "metadata", "update", "add", "remove", "install", "publish", "clean", "nextest", "fix", "audit",
            "outdated", "search", "new", "init", "package", "vendor", "llvm-cov", "deny", "fuzz", "miri"
        ),
        top_rule: None,
        second_rule: None,
        third: NO,
        any_case: false,
    },
    Family {
        tools: &["npm", "pnpm", "yarn", "bun"],
        top: leaves!(
            "install",
            "i",
            "ci",
            "test",
            "t",
            "run",
            "ls",
            "list",
            "outdated",
            "audit",
            "update",
            "up",
            "exec",
            "view",
            "info",
            "publish",
            "pack",
            "init",
            "add",
            "remove",
            "uninstall",
            "why",
            "dedupe",
            "build",
            "start",
            "lint",
            "dlx",
            "x",
            "prune",
            "doctor",
            "version",
            "config"
        ),
        top_rule: None,
        second_rule: None,
        third: NO,
        any_case: false,
    },
    Family {
        tools: &["go"],
        top: &[("mod", GO_MOD), ("work", &["init", "use", "sync", "edit"])],
        top_rule: Some(|w| {
            [
                "build", "test", "vet", "run", "get", "list", "env", "version", "fmt", "generate", "install",
                "clean", "doc", "tool",
            ]
            .contains(&w)
        }),
        second_rule: None,
        third: NO,
        any_case: false,
    },
    Family {
        tools: &["terraform", "tofu"],
        top: &[
            ("state", TF_STATE),
            ("workspace", TF_WORKSPACE),
            ("providers", &["lock", "mirror", "schema"]),
        ],
        top_rule: Some(|w| {
            [
                "plan",
                "apply",
                "show",
                "output",
                "init",
                "validate",
                "fmt",
                "import",
                "destroy",
                "refresh",
                "version",
                "console",
                "graph",
                "get",
                "test",
                "taint",
                "untaint",
                "force-unlock",
                "login",
            ]
            .contains(&w)
        }),
        second_rule: None,
        third: NO,
        any_case: false,
    },
    Family {
        tools: &["gcloud"],
        top: &[
            ("compute", GCLOUD_RESOURCES),
            ("container", GCLOUD_RESOURCES),
            ("projects", NO),
            ("iam", GCLOUD_RESOURCES),
            ("storage", GCLOUD_RESOURCES),
            ("sql", GCLOUD_RESOURCES),
            ("run", GCLOUD_RESOURCES),
            ("functions", NO),
            ("config", &["list", "get", "set", "configurations", "unset"]),
            ("auth", &["list", "login", "print-access-token", "revoke", "application-default"]),
            ("logging", GCLOUD_RESOURCES),
            ("pubsub", GCLOUD_RESOURCES),
            ("secrets", GCLOUD_RESOURCES),
            ("services", NO),
            ("app", GCLOUD_RESOURCES),
            ("artifacts", GCLOUD_RESOURCES),
            ("builds", GCLOUD_RESOURCES),
            ("kms", GCLOUD_RESOURCES),
            ("dns", GCLOUD_RESOURCES),
            ("beta", NO),
            ("alpha", NO),
        ],
        top_rule: None,
        second_rule: None,
        third: NO,
        any_case: false,
    },
    Family {
        tools: &["az"],
        top: &[
            ("vm", AZ_SUBS),
            ("group", AZ_SUBS),
            ("aks", AZ_SUBS),
            ("storage", AZ_SUBS),
            ("account", AZ_SUBS),
            ("network", AZ_SUBS),
            ("webapp", AZ_SUBS),
            ("functionapp", AZ_SUBS),
            ("keyvault", AZ_SUBS),
            ("ad", AZ_SUBS),
            ("role", AZ_SUBS),
            ("acr", AZ_SUBS),
            ("monitor", AZ_SUBS),
            ("sql", AZ_SUBS),
            ("cosmosdb", AZ_SUBS),
            ("resource", AZ_SUBS),
            ("deployment", AZ_SUBS),
        ],
        top_rule: None,
        second_rule: None,
        third: NO,
        any_case: false,
    },
    Family {
        tools: &["redis-cli", "valkey-cli"],
        top: &[("CONFIG", REDIS_CONFIG), ("CLIENT", REDIS_CLIENT), ("CLUSTER", &["INFO", "NODES", "SLOTS"])],
        top_rule: Some(|w| {
            [
                "AUTH", "PING", "INFO", "GET", "SET", "DEL", "KEYS", "SCAN", "TYPE", "TTL", "EXISTS", "HGET",
                "HGETALL", "HKEYS", "LRANGE", "LLEN", "SMEMBERS", "ZRANGE", "DBSIZE", "SELECT", "MONITOR",
                "SLOWLOG", "MEMORY", "XRANGE", "XINFO", "MGET", "INCR", "EXPIRE", "FLUSHDB", "FLUSHALL",
            ]
            .contains(&w)
        }),
        second_rule: None,
        third: NO,
        any_case: true,
    },
];

/// AWS service command names look like this: lowercase letters and digits,
/// maybe hyphenated (`ec2`, `s3api`, `logs`, `resource-groups`).
fn aws_service(w: &str) -> bool {
    const SERVICES: &[&str] = &[
        "accessanalyzer",
        "acm",
        "apigateway",
        "apigatewayv2",
        "appsync",
        "athena",
        "autoscaling",
        "backup",
        "batch",
        "budgets",
        "ce",
        "cloudformation",
        "cloudfront",
        "cloudtrail",
        "cloudwatch",
        "codebuild",
        "codecommit",
        "codedeploy",
        "codepipeline",
        "cognito-identity",
        "cognito-idp",
        "config",
        "dms",
        "docdb",
        "dynamodb",
        "dynamodbstreams",
        "ebs",
        "ec2",
        "ecr",
        "ecr-public",
        "ecs",
        "efs",
        "eks",
        "elasticache",
        "elasticbeanstalk",
        "elb",
        "elbv2",
        "emr",
        "es",
        "events",
        "firehose",
        "glacier",
        "glue",
        "guardduty",
        "iam",
        "identitystore",
        "inspector2",
        "iot",
        "kafka",
        "kinesis",
        "kms",
        "lambda",
        "lightsail",
        "logs",
        "macie2",
        "mq",
        "neptune",
        "opensearch",
        "organizations",
        "pricing",
        "quicksight",
        "ram",
        "rds",
        "rds-data",
        "redshift",
        "resource-groups",
        "resourcegroupstaggingapi",
        "route53",
        "route53domains",
        "route53resolver",
        "s3api",
        "s3control",
        "sagemaker",
        "scheduler",
        "secretsmanager",
        "securityhub",
        "servicecatalog",
        "servicediscovery",
        "ses",
        "sesv2",
        "shield",
        "sns",
        "sqs",
        "ssm",
        "sso",
        "sso-admin",
        "sso-oidc",
        "stepfunctions",
        "sts",
        "support",
        "swf",
        "textract",
        "transfer",
        "translate",
        "waf",
        "wafv2",
        "workspaces",
        "xray",
        "amp",
        "appconfig",
        "application-autoscaling",
        "appmesh",
        "apprunner",
        "bedrock",
        "bedrock-runtime",
        "cloud9",
        "cloudhsmv2",
        "cloudsearch",
        "codeartifact",
        "comprehend",
        "compute-optimizer",
        "datasync",
        "directconnect",
        "ds",
        "ec2-instance-connect",
        "emr-containers",
        "fsx",
        "globalaccelerator",
        "grafana",
        "health",
        "kafkaconnect",
        "keyspaces",
        "lakeformation",
        "memorydb",
        "mwaa",
        "networkfirewall",
        "network-firewall",
        "outposts",
        "pipes",
        "polly",
        "qldb",
        "rekognition",
        "resiliencehub",
        "s3outposts",
        "serverlessrepo",
        "service-quotas",
        "signer",
        "snowball",
        "ssm-incidents",
        "storagegateway",
        "timestream-query",
        "timestream-write",
        "transcribe",
        "vpc-lattice",
        "wellarchitected",
    ];
    SERVICES.contains(&w)
}

/// AWS operations are a verb, a hyphen and nouns (`describe-vpcs`,
/// `get-caller-identity`, `list-objects-v2`).
fn aws_operation(w: &str) -> bool {
    const VERB_PREFIXES: &[&str] = &[
        "describe",
        "list",
        "get",
        "create",
        "delete",
        "update",
        "put",
        "start",
        "stop",
        "run",
        "modify",
        "attach",
        "detach",
        "associate",
        "disassociate",
        "tag",
        "untag",
        "batch",
        "invoke",
        "publish",
        "send",
        "receive",
        "query",
        "scan",
        "search",
        "terminate",
        "reboot",
        "register",
        "deregister",
        "enable",
        "disable",
        "import",
        "export",
        "copy",
        "restore",
        "cancel",
        "reset",
        "test",
        "validate",
        "add",
        "remove",
        "set",
        "authorize",
        "revoke",
        "assume",
        "decode",
        "encrypt",
        "decrypt",
        "generate",
        "upload",
        "download",
        "head",
        "wait",
        "filter",
        "lookup",
        "simulate",
        "change",
        "allocate",
        "release",
        "accept",
        "reject",
        "request",
        "confirm",
        "admin",
        "purge",
        "rotate",
        "execute",
        "retry",
        "tail",
    ];
    let mut parts = w.split('-');
    let Some(verb) = parts.next() else { return false };
    let rest: Vec<&str> = parts.collect();
    VERB_PREFIXES.contains(&verb)
        && !rest.is_empty()
        && rest
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

fn same(a: &str, b: &str, any_case: bool) -> bool {
    if any_case { a.eq_ignore_ascii_case(b) } else { a == b }
}

/// How many of `args` (the words after the tool, flags included) are
/// subcommand words of `tool`, at most `max`.
pub fn subcommand_len(tool: &str, args: &[String], max: usize) -> usize {
    let family = FAMILIES.iter().find(|f| f.tools.contains(&tool));
    let mut top: Option<&(&str, &[&str])> = None;
    let mut n = 0;
    for (level, w) in args.iter().take(max).enumerate() {
        let w = w.as_str();
        let ok = match (family, level) {
            (_, _) if w.starts_with('-') => false,
            (Some(f), 0) => {
                top = f.top.iter().find(|(t, _)| same(t, w, f.any_case));
                top.is_some()
                    || f.top_rule.is_some_and(|r| r(w) || f.any_case && r(&w.to_ascii_uppercase()))
                    || VERBS.contains(&w)
            }
            (Some(f), 1) => match top {
                Some((_, next)) if !next.is_empty() => next.iter().any(|t| same(t, w, f.any_case)),
                Some(_) => false,
                None => {
                    f.second_rule.is_some_and(|r| r(w))
                        || (f.second_rule.is_none() && !f.any_case && VERBS.contains(&w))
                }
            },
            (Some(f), _) => f.third.contains(&w) || (!f.any_case && VERBS.contains(&w)),
            (None, 0 | 1) => VERBS.contains(&w),
            (None, _) => false,
        };
        if !ok {
            break;
        }
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(line: &str) -> String {
        let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        let n = subcommand_len(&words[0], &words[1..], 4);
        words[1..1 + n].join(" ")
    }

    #[test]
    fn known_families_keep_their_subcommands() {
        assert_eq!(kept("aws ec2 describe-vpcs --filters x"), "ec2 describe-vpcs");
        assert_eq!(kept("aws s3 ls s3://bucket/key"), "s3 ls");
        assert_eq!(kept("aws sts get-caller-identity"), "sts get-caller-identity");
        assert_eq!(kept("kubectl get pods mypod -o yaml"), "get pods");
        assert_eq!(kept("kubectl rollout status deployment web"), "rollout status deployment");
        assert_eq!(kept("gh pr view 123"), "pr view");
        assert_eq!(kept("git stash list"), "stash list");
        assert_eq!(kept("git status"), "status");
        assert_eq!(kept("docker compose up -d"), "compose up");
        assert_eq!(kept("gcloud compute instances list"), "compute instances list");
        assert_eq!(kept("terraform state list"), "state list");
        assert_eq!(kept("redis-cli CONFIG GET maxmemory"), "CONFIG GET");
        assert_eq!(kept("redis-cli info"), "info");
    }

    #[test]
    fn values_after_subcommands_are_never_kept() {
        assert_eq!(kept("redis-cli AUTH hunter2pass"), "AUTH");
        assert_eq!(kept("redis-cli auth correcthorse"), "auth");
        assert_eq!(kept("kubectl logs secret-pod-name"), "logs");
        assert_eq!(kept("npm run deploy-with-token"), "run");
        assert_eq!(kept("aws configure set aws_secret_access_key abc"), "configure set");
        assert_eq!(kept("mytool login s3cr3t"), "login");
        assert_eq!(kept("mytool hunter2pass"), "");
        assert_eq!(kept("git commit -m secret"), "commit");
        assert_eq!(kept("aws notaservice describe-x"), "");
        assert_eq!(kept("aws ec2 mysecretvalue"), "ec2");
    }
}
