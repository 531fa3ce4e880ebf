-- Allowed origins are compared with a browser's Origin header as text, and a browser never
-- writes a scheme's default port: an origin saved with one (https://shop.example.com:443) never
-- matched. Saved as a browser writes it, as the API now saves every new one.
UPDATE "storefront_settings"
   SET "allowed_origins" = ARRAY(
         SELECT DISTINCT regexp_replace(regexp_replace(o, '^(https://[^/]+):443$', '\1'), '^(http://[^/]+):80$', '\1')
           FROM unnest("allowed_origins") AS o
       )
 WHERE EXISTS (SELECT 1 FROM unnest("allowed_origins") AS o WHERE o ~ '^(https://[^/]+:443|http://[^/]+:80)$');
