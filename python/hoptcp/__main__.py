from hoptcp.cli import main

raise SystemExit(main())
