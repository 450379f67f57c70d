//! Where a client finds the hub and its credentials, as the Python client's
//! `kxm_grpc.client.config.resolve` does: the builder's options, then `KXM_*` variables, then one
//! credentials file.
//!
//! The file read (at most one): `$KXM_CREDENTIALS` if set; else `$KXM_DATA_DIR/credentials.json`
//! if `KXM_DATA_DIR` is set; else `./.kxm/credentials.json` if it or `./.kxm/agents` exists (local
//! state: a hub on this machine wrote it); else the per-user profile
//! `${XDG_CONFIG_HOME:-$HOME/.config}/kxm/credentials.json` if it exists and either no address was
//! given (option or `KXM_ADDR`) or the profile's `address` (default `127.0.0.1:7331`) is the one
//! given; else none. A file that cannot be read or is not a JSON object counts as absent. An empty
//! variable counts as unset.

use std::path::{Path, PathBuf};

use crate::json::{self, Value};

/// What a client dials when neither an option, `KXM_ADDR` nor the credentials file names a hub.
pub const DEFAULT_ADDRESS: &str = "127.0.0.1:7331";

/// What a `Debug` impl shows for a secret (a token, an agent key): `<redacted>`.
pub(crate) struct Redacted;

impl std::fmt::Debug for Redacted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

/// Whether a secret is set, for a `Debug` impl: `Some(<redacted>)` or `None`, never its value.
pub(crate) fn redacted(secret: &Option<String>) -> Option<Redacted> {
    secret.as_ref().map(|_| Redacted)
}

/// What the builder was given (None: resolve it).
#[derive(Clone, Default)]
pub(crate) struct Options {
    pub(crate) address: Option<String>,
    pub(crate) token: Option<String>,
    pub(crate) admin: bool,
    pub(crate) project: Option<String>,
    pub(crate) agent_id: Option<String>,
    pub(crate) agent_key: Option<String>,
    pub(crate) tls_ca: Option<PathBuf>,
    pub(crate) tls_cert: Option<PathBuf>,
    pub(crate) tls_key: Option<PathBuf>,
    pub(crate) attempt_token: Option<String>,
    pub(crate) session_token: Option<String>,
}

impl std::fmt::Debug for Options {
    /// Everything but the secrets' values (the token, agent key and tool-policy tokens).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("address", &self.address)
            .field("token", &redacted(&self.token))
            .field("admin", &self.admin)
            .field("project", &self.project)
            .field("agent_id", &self.agent_id)
            .field("agent_key", &redacted(&self.agent_key))
            .field("tls_ca", &self.tls_ca)
            .field("tls_cert", &self.tls_cert)
            .field("tls_key", &self.tls_key)
            .field("attempt_token", &redacted(&self.attempt_token))
            .field("session_token", &redacted(&self.session_token))
            .finish()
    }
}

/// The TLS files asked for (by option or variable); which of them are needed is the client's check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TlsFiles {
    /// The PEM file of the CA to trust (option `tls_ca`, `KXM_TLS_CA`).
    pub(crate) ca: Option<PathBuf>,
    /// The client certificate and key for mTLS (option `client_identity`, `KXM_TLS_CERT`/`KXM_TLS_KEY`).
    pub(crate) cert: Option<PathBuf>,
    pub(crate) key: Option<PathBuf>,
}

/// The resolved settings of one client.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Settings {
    pub(crate) address: String,
    pub(crate) token: Option<String>,
    pub(crate) project: Option<String>,
    pub(crate) agent_id: Option<String>,
    pub(crate) agent_key: Option<String>,
    pub(crate) attempt_token: Option<String>,
    pub(crate) session_token: Option<String>,
    pub(crate) tls: Option<TlsFiles>,
    /// The credentials file read, if one was.
    pub(crate) credentials_file: Option<PathBuf>,
    /// What to say when the hub finds no token: every place looked, in order.
    pub(crate) missing_token: String,
}

impl std::fmt::Debug for Settings {
    /// Everything but the secrets' values (the token, agent key and tool-policy tokens).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("address", &self.address)
            .field("token", &redacted(&self.token))
            .field("project", &self.project)
            .field("agent_id", &self.agent_id)
            .field("agent_key", &redacted(&self.agent_key))
            .field("attempt_token", &redacted(&self.attempt_token))
            .field("session_token", &redacted(&self.session_token))
            .field("tls", &self.tls)
            .field("credentials_file", &self.credentials_file)
            .field("missing_token", &self.missing_token)
            .finish()
    }
}

/// Resolve `options` with the process's environment, from the current directory.
pub(crate) fn resolve_from_process(options: &Options) -> Settings {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    resolve(options, &|name| std::env::var(name).ok(), &cwd)
}

/// Resolve `options` with the variables `env` gives, relative paths taken from `cwd`.
pub(crate) fn resolve(options: &Options, env: &dyn Fn(&str) -> Option<String>, cwd: &Path) -> Settings {
    let var = |name: &str| env(name).filter(|value| !value.is_empty());
    let given = |option: &Option<String>, name: &str| option.clone().filter(|value| !value.is_empty()).or_else(|| var(name));

    let address_given = given(&options.address, "KXM_ADDR");
    let picked = pick_file(&var, cwd, address_given.as_deref());
    let saved = picked.read.as_deref().and_then(read_file);
    let saved_str = |name: &str| saved.as_ref().and_then(|file| file.get(name)).and_then(Value::as_str);

    let project = given(&options.project, "KXM_PROJECT");
    let project_name = project.clone().unwrap_or_else(|| "default".to_owned());
    let variable = if options.admin { "KXM_ADMIN_TOKEN" } else { "KXM_TOKEN" };
    let token = options.token.clone().or_else(|| var(variable)).or_else(|| {
        let file = saved.as_ref()?;
        let found = if options.admin {
            file.get("admin_token")
        } else {
            file.get("projects").and_then(|projects| projects.get(&project_name))
        };
        found.and_then(Value::as_str).map(str::to_owned)
    });

    let address = address_given
        .or_else(|| saved_str("address").filter(|value| !value.is_empty()).map(str::to_owned))
        .unwrap_or_else(|| DEFAULT_ADDRESS.to_owned())
        .trim()
        .to_owned();

    let path = |option: &Option<PathBuf>, name: &str| option.clone().or_else(|| var(name).map(PathBuf::from));
    let tls = TlsFiles {
        ca: path(&options.tls_ca, "KXM_TLS_CA"),
        cert: path(&options.tls_cert, "KXM_TLS_CERT"),
        key: path(&options.tls_key, "KXM_TLS_KEY"),
    };
    let wanted = if options.admin { "admin token".to_owned() } else { format!("project token for project {project_name:?}") };
    let why = if options.admin { "no admin_token".to_owned() } else { format!("no token for project {project_name:?}") };
    let file_note = match (&picked.read, &saved) {
        (Some(file), Some(_)) => format!("{} ({why})", file.display()),
        (Some(file), None) => format!("{} (unreadable or not a JSON object)", file.display()),
        (None, _) => picked.notes.join(", "),
    };
    Settings {
        address,
        token,
        project,
        agent_id: given(&options.agent_id, "KXM_AGENT_ID"),
        agent_key: given(&options.agent_key, "KXM_AGENT_KEY"),
        attempt_token: given(&options.attempt_token, "KXM_ATTEMPT_TOKEN"),
        session_token: given(&options.session_token, "KXM_SESSION_TOKEN"),
        tls: (tls.ca.is_some() || tls.cert.is_some() || tls.key.is_some()).then_some(tls),
        credentials_file: saved.is_some().then_some(picked.read).flatten(),
        missing_token: format!("no {wanted} found; looked in the token option, {variable}, {file_note}"),
    }
}

/// The credentials file `pick_file` chose, and why the others gave nothing.
struct Picked {
    /// The file to read (it exists, as far as `pick_file` could tell), or None.
    read: Option<PathBuf>,
    /// When none is read: each place looked, with why it gave nothing.
    notes: Vec<String>,
}

/// The one credentials file a client reads (module documentation), if any.
fn pick_file(var: &dyn Fn(&str) -> Option<String>, cwd: &Path, address_given: Option<&str>) -> Picked {
    let local = |path: PathBuf, why: &str| {
        if path.is_file() {
            Picked { read: Some(path), notes: Vec::new() }
        } else {
            Picked { notes: vec![format!("{} (no such file; {why}, so no other is read)", path.display())], read: None }
        }
    };
    if let Some(file) = var("KXM_CREDENTIALS") {
        return local(cwd.join(file), "KXM_CREDENTIALS is set");
    }
    if let Some(dir) = var("KXM_DATA_DIR") {
        return local(cwd.join(dir).join("credentials.json"), "KXM_DATA_DIR is set");
    }
    let state = cwd.join(".kxm");
    if state.join("credentials.json").exists() || state.join("agents").exists() {
        return local(state.join("credentials.json"), "./.kxm holds local state");
    }
    let mut notes = vec![format!("{} (no such file)", state.join("credentials.json").display())];
    let Some(config) = var("XDG_CONFIG_HOME").map(|dir| cwd.join(dir)).or_else(|| var("HOME").map(|home| Path::new(&home).join(".config")))
    else {
        notes.push("the per-user profile (neither XDG_CONFIG_HOME nor HOME is set)".to_owned());
        return Picked { read: None, notes };
    };
    let profile = config.join("kxm").join("credentials.json");
    if !profile.is_file() {
        notes.push(format!("{} (no such file)", profile.display()));
        return Picked { read: None, notes };
    }
    if let Some(given) = address_given {
        // The profile belongs to its own hub: its tokens are not sent to another.
        let theirs = match read_file(&profile).as_ref().and_then(|file| file.get("address")) {
            None | Some(Value::Null) => DEFAULT_ADDRESS.to_owned(),
            Some(Value::String(text)) if text.is_empty() => DEFAULT_ADDRESS.to_owned(),
            Some(Value::String(text)) => text.trim().to_owned(),
            Some(_) => String::new(), // not an address: never the one given
        };
        if theirs != given.trim() {
            notes.push(format!("{} (for hub {theirs}, not {})", profile.display(), given.trim()));
            return Picked { read: None, notes };
        }
    }
    Picked { read: Some(profile), notes: Vec::new() }
}

/// The JSON object in `path`, or None (unreadable, not JSON, not an object).
fn read_file(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    json::parse(&text).filter(|value| matches!(value, Value::Object(_)))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// A fresh, empty folder under the system's temporary folder (removed on drop).
    struct Folder(PathBuf);

    impl Folder {
        fn new() -> Self {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = std::env::temp_dir().join(format!("kxm-client-config-{}-{n}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).expect("temporary folder");
            Folder(path)
        }

        fn write(&self, relative: &str, text: &str) -> PathBuf {
            let path = self.0.join(relative);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("folder");
            std::fs::write(&path, text).expect("write");
            path
        }
    }

    impl Drop for Folder {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn run(options: &Options, vars: &[(&str, &str)], cwd: &Path) -> Settings {
        let vars: HashMap<String, String> = vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        resolve(options, &|name| vars.get(name).cloned(), cwd)
    }

    const FILE: &str = r#"{"address": "10.0.0.1:7000", "admin_token": "adm",
        "projects": {"default": "tok-default", "p2": "tok-p2"}}"#;

    #[test]
    fn nothing_anywhere_is_the_default_address_and_no_token() {
        let dir = Folder::new();
        let settings = run(&Options::default(), &[], &dir.0);
        assert_eq!(settings.address, DEFAULT_ADDRESS);
        assert_eq!((settings.token, settings.project, settings.tls), (None, None, None));
        assert!(settings.missing_token.starts_with("no project token for project \"default\" found; looked in"));
    }

    #[test]
    fn options_then_variables_then_the_file() {
        let dir = Folder::new();
        let file = dir.write("c.json", FILE);
        let file = file.to_str().expect("utf-8");
        let settings = run(&Options::default(), &[("KXM_CREDENTIALS", file)], &dir.0);
        assert_eq!(settings.address, "10.0.0.1:7000");
        assert_eq!(settings.token.as_deref(), Some("tok-default"));
        assert_eq!(settings.credentials_file.as_deref(), Some(Path::new(file)));

        let vars = [("KXM_CREDENTIALS", file), ("KXM_ADDR", "10.0.0.2:1"), ("KXM_TOKEN", "env"), ("KXM_PROJECT", "p2")];
        let settings = run(&Options::default(), &vars, &dir.0);
        assert_eq!((settings.address.as_str(), settings.token.as_deref()), ("10.0.0.2:1", Some("env")));
        assert_eq!(settings.project.as_deref(), Some("p2"));
        let settings = run(&Options::default(), &[("KXM_CREDENTIALS", file), ("KXM_PROJECT", "p2")], &dir.0);
        assert_eq!(settings.token.as_deref(), Some("tok-p2"));

        let options = Options {
            address: Some("h:1".into()),
            token: Some("opt".into()),
            project: Some("p3".into()),
            agent_id: Some("agt".into()),
            agent_key: Some("key".into()),
            ..Options::default()
        };
        let settings = run(&options, &vars, &dir.0);
        assert_eq!((settings.address.as_str(), settings.token.as_deref()), ("h:1", Some("opt")));
        assert_eq!((settings.agent_id.as_deref(), settings.agent_key.as_deref()), (Some("agt"), Some("key")));
        assert_eq!(settings.project.as_deref(), Some("p3"));
    }

    #[test]
    fn admin_takes_the_admin_token() {
        let dir = Folder::new();
        let file = dir.write("c.json", FILE);
        let vars = [("KXM_CREDENTIALS", file.to_str().expect("utf-8")), ("KXM_TOKEN", "project")];
        let settings = run(&Options { admin: true, ..Options::default() }, &vars, &dir.0);
        assert_eq!(settings.token.as_deref(), Some("adm"));
        let mut with_admin = vars.to_vec();
        with_admin.push(("KXM_ADMIN_TOKEN", "env-admin"));
        let settings = run(&Options { admin: true, ..Options::default() }, &with_admin, &dir.0);
        assert_eq!(settings.token.as_deref(), Some("env-admin"));
    }

    #[test]
    fn the_data_dir_and_local_state_come_before_the_profile() {
        let dir = Folder::new();
        dir.write("config/kxm/credentials.json", FILE);
        dir.write("data/credentials.json", r#"{"projects": {"default": "from-data"}}"#);
        let profile = [("XDG_CONFIG_HOME", "config")];
        assert_eq!(run(&Options::default(), &profile, &dir.0).token.as_deref(), Some("tok-default"));

        let with_data = [("XDG_CONFIG_HOME", "config"), ("KXM_DATA_DIR", "data")];
        let settings = run(&Options::default(), &with_data, &dir.0);
        assert_eq!((settings.address.as_str(), settings.token.as_deref()), (DEFAULT_ADDRESS, Some("from-data")));

        // ./.kxm/agents alone makes local state apply: its missing file never falls through.
        std::fs::create_dir_all(dir.0.join(".kxm/agents")).expect("agents");
        let settings = run(&Options::default(), &profile, &dir.0);
        assert_eq!((settings.token, settings.credentials_file), (None, None));
        dir.write(".kxm/credentials.json", r#"{"projects": {"default": "local"}}"#);
        assert_eq!(run(&Options::default(), &profile, &dir.0).token.as_deref(), Some("local"));
    }

    #[test]
    fn the_profile_applies_to_its_own_hub_only() {
        let dir = Folder::new();
        dir.write("home/.config/kxm/credentials.json", FILE);
        let home = dir.0.join("home");
        let home = home.to_str().expect("utf-8");
        assert_eq!(run(&Options::default(), &[("HOME", home)], &dir.0).token.as_deref(), Some("tok-default"));
        let same = [("HOME", home), ("KXM_ADDR", " 10.0.0.1:7000 ")];
        assert_eq!(run(&Options::default(), &same, &dir.0).token.as_deref(), Some("tok-default"));
        let other = Options { address: Some("10.0.0.9:7000".into()), ..Options::default() };
        let settings = run(&other, &[("HOME", home)], &dir.0);
        assert_eq!((settings.address.as_str(), settings.token), ("10.0.0.9:7000", None));
        assert!(settings.missing_token.contains("for hub 10.0.0.1:7000, not 10.0.0.9:7000"), "{}", settings.missing_token);
    }

    #[test]
    fn a_profile_without_address_is_for_the_default_hub() {
        let dir = Folder::new();
        dir.write("config/kxm/credentials.json", r#"{"projects": {"default": "t"}}"#);
        let vars = [("XDG_CONFIG_HOME", "config"), ("KXM_ADDR", DEFAULT_ADDRESS)];
        assert_eq!(run(&Options::default(), &vars, &dir.0).token.as_deref(), Some("t"));
    }

    #[test]
    fn an_unreadable_file_is_absent_and_empty_variables_are_unset() {
        let dir = Folder::new();
        let file = dir.write("c.json", "{not json");
        let vars = [("KXM_CREDENTIALS", file.to_str().expect("utf-8")), ("KXM_TOKEN", ""), ("KXM_ADDR", "")];
        let settings = run(&Options::default(), &vars, &dir.0);
        assert_eq!((settings.address.as_str(), settings.token), (DEFAULT_ADDRESS, None));
        assert!(settings.missing_token.contains("unreadable"), "{}", settings.missing_token);
    }

    #[test]
    fn tls_files_and_tool_policy_tokens_come_from_the_environment() {
        let dir = Folder::new();
        let vars = [
            ("KXM_TLS_CA", "/ca.pem"),
            ("KXM_TLS_CERT", "/c.pem"),
            ("KXM_TLS_KEY", "/k.pem"),
            ("KXM_ATTEMPT_TOKEN", "att"),
            ("KXM_SESSION_TOKEN", "ses"),
        ];
        let settings = run(&Options::default(), &vars, &dir.0);
        let tls = settings.tls.expect("tls");
        assert_eq!(tls.ca.as_deref(), Some(Path::new("/ca.pem")));
        assert_eq!((tls.cert.as_deref(), tls.key.as_deref()), (Some(Path::new("/c.pem")), Some(Path::new("/k.pem"))));
        assert_eq!((settings.attempt_token.as_deref(), settings.session_token.as_deref()), (Some("att"), Some("ses")));
    }

    #[test]
    fn debug_shows_no_secret() {
        let dir = Folder::new();
        let options = Options {
            address: Some("h:1".into()),
            token: Some("secret-token".into()),
            agent_id: Some("agt_1".into()),
            agent_key: Some("secret-key".into()),
            attempt_token: Some("secret-attempt".into()),
            session_token: Some("secret-session".into()),
            ..Options::default()
        };
        let settings = run(&options, &[], &dir.0);
        for shown in [format!("{options:?}"), format!("{settings:?}")] {
            assert!(!shown.contains("secret-"), "{shown}");
            assert!(shown.contains("agt_1") && shown.contains("<redacted>"), "{shown}");
        }
    }
}
