// The page's script before it was split into modules (js/main.js and
// what it imports). A page whose HTML is older than its script (cached,
// or an embed of this server's that names app.js) still starts: as a
// classic script, it loads the modules by a dynamic import.
import("/static/js/main.js");
